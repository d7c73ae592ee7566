package io.pointsman.sandbox.load;

import io.pointsman.api.model.TabletType;
import io.pointsman.api.names.Names;
import io.pointsman.sandbox.router.Read;
import io.pointsman.sandbox.router.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Checks a load run against the data: every acknowledged write must be present exactly once where
 * the topology serves its key now. Each key is read through the {@link Router}, so "where" is
 * decided by the same routing rules, shard records and SrvKeyspace that the writes followed.
 */
public final class LoadVerifier {
  private final Router router;
  private final String table;
  private final String countSql;
  private final TabletType tabletType;

  /**
   * @param table the routed table, {@code customer} or {@code ks.customer}
   * @param keyColumn the column holding each write's sharding key
   * @param tabletType whose routing decides where to look; PRIMARY (where writes go now) unless
   *     the question is where reads are served
   */
  public LoadVerifier(Router router, String table, String keyColumn, TabletType tabletType) {
    this.router = Objects.requireNonNull(router, "router");
    this.table = Objects.requireNonNull(table, "table");
    this.tabletType = Objects.requireNonNull(tabletType, "tabletType");
    String bare = Names.table(table.substring(table.indexOf('.') + 1));
    this.countSql = "SELECT COUNT(*) FROM " + bare + " WHERE " + Names.table(keyColumn) + " = ?";
  }

  /** The customer load's shape: table {@code customer}, key {@code customer_id}, PRIMARY routing. */
  public static LoadVerifier forCustomers(Router router) {
    return new LoadVerifier(router, "customer", "customer_id", TabletType.PRIMARY);
  }

  /**
   * Reads every acknowledged key once (one routed read per key, so thousands of writes take a few
   * seconds). Routing failures propagate: a key that cannot be looked up is not evidence either way.
   */
  public VerificationReport verify(LoadLog loadLog) {
    List<LoadRecord> records = loadLog.records();
    List<Long> missing = new ArrayList<>();
    List<Long> duplicated = new ArrayList<>();
    List<LoadRecord> errors = new ArrayList<>();
    long rows = 0;
    int acknowledged = 0;
    for (LoadRecord r : records) {
      if (!r.acknowledged()) {
        errors.add(r);
        continue;
      }
      acknowledged++;
      long count = router.query(Read.of(table, tabletType, r.key(), countSql, r.key()), rs -> rs.getLong(1)).get(0);
      rows += count;
      if (count == 0) {
        missing.add(r.key());
      } else if (count > 1) {
        duplicated.add(r.key());
      }
    }
    AckStatistics stats = AckStatistics.of(loadLog.startNanos(), records);
    return new VerificationReport(records.size(), acknowledged, missing, duplicated, rows, errors,
        stats.longestGapBetweenAcks(), stats.maxLatency(), stats.p50Latency(), stats.p99Latency());
  }
}
