package io.pointsman.sandbox.load;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.names.Names;
import io.pointsman.sandbox.cluster.HashVindex;
import io.pointsman.sandbox.router.Read;
import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.router.RouterException;
import io.pointsman.sandbox.router.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Checks a load run against the data: every acknowledged write must be present exactly once on the
 * side that serves its key now, and nowhere it could not have come from.
 *
 * <p>Where a key is served is decided by the {@link Router} (the routing rules, shard records and
 * SrvKeyspace the writes followed). Every shard of every keyspace is read too, from its primary
 * directly, so that a copy the router would never show is seen:
 *
 * <ul>
 *   <li>the serving shard must hold exactly one row of the key (none: missing; more: duplicated);
 *   <li>no shard may hold two rows of it, and no shard whose key range does not hold the key's
 *       keyspace id may hold it at all (a write applied twice, or on a second shard: duplicated).
 * </ul>
 *
 * One row on the other side (the keyspace or shards that do not serve the key, on a shard whose
 * range holds it) is allowed: that is where the forward or reverse streams copy every write, so it
 * cannot tell a replicated copy from one written there by mistake.
 */
public final class LoadVerifier {
  private final Router router;
  private final String table;
  private final String bareTable;
  private final String keyColumn;
  private final String countSql;
  private final TabletType tabletType;

  /**
   * @param table the routed table, {@code customer} or {@code ks.customer}
   * @param keyColumn the column holding each write's sharding key (a {@code hash} vindex's column
   *     in sharded keyspaces)
   * @param tabletType whose routing decides where to look; PRIMARY (where writes go now) unless
   *     the question is where reads are served
   */
  public LoadVerifier(Router router, String table, String keyColumn, TabletType tabletType) {
    this.router = Objects.requireNonNull(router, "router");
    this.table = Objects.requireNonNull(table, "table");
    this.keyColumn = Objects.requireNonNull(keyColumn, "keyColumn");
    this.tabletType = Objects.requireNonNull(tabletType, "tabletType");
    this.bareTable = table.substring(table.indexOf('.') + 1);
    this.countSql = "SELECT COUNT(*) FROM " + Names.table(bareTable) + " WHERE "
        + Names.table(keyColumn) + " = ?";
  }

  /** The customer load's shape: table {@code customer}, key {@code customer_id}, PRIMARY routing. */
  public static LoadVerifier forCustomers(Router router) {
    return new LoadVerifier(router, "customer", "customer_id", TabletType.PRIMARY);
  }

  /**
   * Resolves every acknowledged key's serving shard and reads every shard once. Routing failures
   * propagate: a key that cannot be looked up is not evidence either way.
   */
  public VerificationReport verify(LoadLog loadLog) {
    List<LoadRecord> records = loadLog.records();
    List<LoadRecord> errors = new ArrayList<>();
    List<LoadRecord> acked = new ArrayList<>();
    for (LoadRecord r : records) {
      (r.acknowledged() ? acked : errors).add(r);
    }
    List<Long> missing = new ArrayList<>();
    List<Long> duplicated = new ArrayList<>();
    List<String> strayCopies = new ArrayList<>();
    long rows = 0;
    if (!acked.isEmpty()) {
      long min = acked.stream().mapToLong(LoadRecord::key).min().getAsLong();
      long max = acked.stream().mapToLong(LoadRecord::key).max().getAsLong();
      Map<Long, List<ShardCopies.Copy>> copies = ShardCopies.scan(router.options().store(),
          router.options().mysqlUser(), router.options().mysqlPassword(), bareTable, keyColumn, min, max);
      for (LoadRecord r : acked) {
        Target serving = servingTarget(r.key());
        long onServing = 0;
        boolean stray = false;
        for (ShardCopies.Copy c : copies.getOrDefault(r.key(), List.of())) {
          boolean isServing = c.keyspace().equals(serving.keyspace()) && c.shard().equals(serving.shard());
          if (isServing) {
            onServing = c.rows();
          }
          if (c.rows() > 1) {
            stray = true;
            strayCopies.add("key " + r.key() + ": " + c.rows() + " rows on " + c.where());
          } else if (!c.range().isFull() && !HashVindex.inKeyRange(r.key(), c.range())) {
            stray = true;
            strayCopies.add("key " + r.key() + ": a row on " + c.where() + ", whose key range does not hold it"
                + (isServing ? "" : " (served by " + serving.keyspaceShard() + ")"));
          }
        }
        rows += onServing;
        if (onServing == 0) {
          missing.add(r.key());
        } else if (onServing > 1 || stray) {
          duplicated.add(r.key());
        }
      }
    }
    AckStatistics stats = AckStatistics.of(loadLog.startNanos(), records);
    return new VerificationReport(records.size(), acked.size(), missing, duplicated, strayCopies, rows, errors,
        stats.longestGapBetweenAcks(), stats.maxLatency(), stats.p50Latency(), stats.p99Latency());
  }

  /**
   * The shard serving the key now. While the router holds such statements (its view of a switch
   * that just ended may lag), one routed read waits in its buffer for the topology to let it through.
   */
  private Target servingTarget(long key) {
    try {
      return router.resolve(table, tabletType, key);
    } catch (RouterException held) {
      if (held.code() != ErrorCode.UNAVAILABLE) {
        throw held;
      }
      router.query(Read.of(table, tabletType, key, countSql, key), rs -> rs.getLong(1));
      return router.resolve(table, tabletType, key);
    }
  }
}
