package io.pointsman.activities.show;

import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.StreamsPort;
import io.pointsman.engine.primary.tablet.TabletPrimaries;
import io.pointsman.engine.primary.tablet.TabletPrimary;
import io.pointsman.engine.tablet.DbaQuery;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.tablet.TabletQueryResult;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * {@link SidecarReads} over vttablet RPCs (real Vitess): streams through the streams port, the
 * sidecar tables through VReplicationExec, table sizes through ExecuteFetchAsDba — the calls
 * vtctld makes for GetWorkflows and WorkflowStatus.
 */
public final class TabletSidecarReads implements SidecarReads {
  private static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss[.SSSSSS]");

  private final TabletManagerClient client;
  private final TabletPrimaries primaries;
  private final StreamsPort streams;

  public TabletSidecarReads(TabletManagerClient client, TabletPrimaries primaries, StreamsPort streams) {
    this.client = client;
    this.primaries = primaries;
    this.streams = streams;
  }

  /**
   * The streams port's rows, with the two columns ReadVReplicationWorkflow does not answer read
   * from {@code _vt.vreplication}: the workflow options and the last heartbeat.
   */
  @Override
  public List<Stream> streams(ShardRef shard, String workflow) {
    List<Stream> read = streams.read(shard, workflow);
    if (read.isEmpty()) {
      return read;
    }
    TabletPrimary p = primaries.resolve(shard);
    TabletQueryResult r = client.vreplicationExec(p.endpoint(), "select id, options, time_heartbeat from _vt.vreplication"
        + " where id in (" + ids(read.stream().map(Stream::id).toList()) + ")");
    Map<Integer, Integer> rowOf = new TreeMap<>();
    for (int i = 0; i < r.rows().size(); i++) {
      rowOf.put(Integer.parseInt(r.value(i, "id")), i);
    }
    List<Stream> out = new ArrayList<>();
    for (Stream s : read) {
      Integer i = rowOf.get(s.id());
      String options = i == null || r.value(i, "options") == null ? s.options() : r.value(i, "options");
      Instant heartbeat = i == null ? s.timeHeartbeat() : Instant.ofEpochSecond(number(r.value(i, "time_heartbeat")));
      out.add(new Stream(s.id(), s.workflow(), s.source(), s.pos(), s.stopPos(), s.state(), s.message(), s.dbName(),
          s.cell(), s.tabletTypes(), s.timeUpdated(), s.transactionTimestamp(), heartbeat, s.rowsCopied(),
          s.workflowType(), s.workflowSubType(), options, s.copyPending()));
    }
    return out;
  }

  @Override
  public List<CopyStateRow> copyStates(ShardRef shard, Collection<Integer> streamIds) {
    return rowsOfStreams(shard, streamIds, "select vrepl_id, table_name, lastpk from _vt.copy_state",
        (r, i) -> new CopyStateRow(Integer.parseInt(r.value(i, "vrepl_id")), r.value(i, "table_name"),
            r.value(i, "lastpk")));
  }

  @Override
  public List<LogRow> logs(ShardRef shard, Collection<Integer> streamIds) {
    return rowsOfStreams(shard, streamIds, "select id, vrepl_id, type, state, message, created_at,"
        + " updated_at, `count` from _vt.vreplication_log",
        (r, i) -> new LogRow(Long.parseLong(r.value(i, "id")), Integer.parseInt(r.value(i, "vrepl_id")),
            r.value(i, "type"), r.value(i, "state"), time(r.value(i, "created_at")), time(r.value(i, "updated_at")),
            r.value(i, "message"), Long.parseLong(r.value(i, "count"))));
  }

  /** One value per row that {@code selectFrom} finds for the streams, in stream order; none for no streams. */
  private <T> List<T> rowsOfStreams(ShardRef shard, Collection<Integer> streamIds, String selectFrom,
      BiFunction<TabletQueryResult, Integer, T> row) {
    if (streamIds.isEmpty()) {
      return List.of();
    }
    TabletPrimary p = primaries.resolve(shard);
    TabletQueryResult r = client.vreplicationExec(p.endpoint(), selectFrom
        + " where vrepl_id in (" + ids(streamIds) + ") order by vrepl_id, id");
    List<T> out = new ArrayList<>();
    for (int i = 0; i < r.rows().size(); i++) {
      out.add(row.apply(r, i));
    }
    return out;
  }

  @Override
  public Map<String, TableSize> tableSizes(ShardRef shard, Collection<String> tables) {
    if (tables.isEmpty()) {
      return Map.of();
    }
    TabletPrimary p = primaries.resolve(shard);
    TabletQueryResult r = client.executeFetchAsDba(p.endpoint(), DbaQuery.of("select table_name, table_rows, data_length"
        + " from information_schema.tables where table_schema = " + quote(p.dbName()) + " and table_name in ("
        + tables.stream().map(TabletSidecarReads::quote).collect(Collectors.joining(", ")) + ")"));
    Map<String, TableSize> out = new TreeMap<>();
    for (List<String> row : r.rows()) {
      out.put(row.get(0), new TableSize(number(row.get(1)), number(row.get(2))));
    }
    return out;
  }

  private static String ids(Collection<Integer> ids) {
    return ids.stream().map(String::valueOf).collect(Collectors.joining(", "));
  }

  /** A SQL string literal; names here are validated identifiers, the escaping guards the rest. */
  private static String quote(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "''") + "'";
  }

  private static long number(String s) {
    return s == null || s.isEmpty() ? 0 : Long.parseLong(s);
  }

  private static Instant time(String s) {
    if (s == null || s.isEmpty()) {
      return Instant.EPOCH;
    }
    try {
      return LocalDateTime.parse(s, DATETIME).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return Instant.EPOCH;
    }
  }
}
