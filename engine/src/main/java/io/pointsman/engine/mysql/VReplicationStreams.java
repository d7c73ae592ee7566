package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.names.Names;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streams of {@code <sidecar>.vreplication} on one primary: read them, and change them the
 * way Vitess's traffic switcher does. Every change is fenced with the caller's locks
 * ({@link MySqlFence}) and runs in one transaction, so it either applies whole or not at all and
 * a stale lock holder changes nothing. Changes are idempotent: running one again finds its work
 * done and changes nothing more.
 *
 * <p>Like Vitess, every statement is restricted to the endpoint's database ({@code db_name}), so
 * streams of other databases on the same server are never touched.
 */
public final class VReplicationStreams {
  private static final Logger log = LoggerFactory.getLogger(VReplicationStreams.class);
  /**
   * Stopping and starting leave a frozen stream alone: FROZEN is a one-way marker (its writes were
   * switched), which only deleting the rows ends; a late stop for cutover or a restart must not
   * clear it.
   */
  private static final String NOT_FROZEN = " AND message <> '" + Stream.FROZEN + "'";
  /** Vitess truncates stream messages to this length (bytes here, since the column is varbinary(1000)). */
  public static final int MAX_MESSAGE = 950;
  /** Vitess's "throttling disabled" for max_tps and max_replication_lag. */
  private static final long UNTHROTTLED = Long.MAX_VALUE;
  private static final String COLUMNS = "id, workflow, source, pos, stop_pos, state, message, db_name, cell,"
      + " tablet_types, time_updated, transaction_timestamp, time_heartbeat, rows_copied, workflow_type,"
      + " workflow_sub_type, options";

  private final ConnectionPools pools;
  private final MySqlFence fence;
  private final SidecarSchema schema;
  private final Clock clock;

  public VReplicationStreams(ConnectionPools pools, MySqlFence fence, SidecarSchema schema) {
    this(pools, fence, schema, Clock.systemUTC());
  }

  VReplicationStreams(ConnectionPools pools, MySqlFence fence, SidecarSchema schema, Clock clock) {
    this.pools = Objects.requireNonNull(pools, "pools");
    this.fence = Objects.requireNonNull(fence, "fence");
    this.schema = Objects.requireNonNull(schema, "schema");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** The workflow's streams on this primary, by id; empty when it has none here. */
  public List<Stream> read(PrimaryEndpoint endpoint, String workflow) {
    Names.workflow(workflow);
    return query(endpoint, "reading the streams of workflow " + workflow,
        "SELECT " + COLUMNS + " FROM " + table(endpoint, "vreplication")
            + " WHERE db_name = ? AND workflow = ? ORDER BY id",
        ps -> {
          ps.setString(1, endpoint.dbName());
          ps.setString(2, workflow);
        });
  }

  /** Every stream of every workflow on this primary's database, by id: what other workflows run there. */
  public List<Stream> readAll(PrimaryEndpoint endpoint) {
    return query(endpoint, "reading the streams of every workflow",
        "SELECT " + COLUMNS + " FROM " + table(endpoint, "vreplication") + " WHERE db_name = ? ORDER BY id",
        ps -> ps.setString(1, endpoint.dbName()));
  }

  /** One stream by id, if it exists in the endpoint's database. */
  public Optional<Stream> read(PrimaryEndpoint endpoint, int id) {
    List<Stream> found = query(endpoint, "reading stream " + id,
        "SELECT " + COLUMNS + " FROM " + table(endpoint, "vreplication") + " WHERE db_name = ? AND id = ?",
        ps -> {
          ps.setString(1, endpoint.dbName());
          ps.setInt(2, id);
        });
    return found.stream().findFirst();
  }

  /** The ids among {@code ids} whose copy phase has not finished ({@code copy_state} still has rows). */
  public Set<Integer> copyInProgress(PrimaryEndpoint endpoint, Collection<Integer> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    schema.ensure(endpoint);
    try (Connection c = pools.connection(endpoint)) {
      return copyPending(c, endpoint, ids);
    } catch (SQLException e) {
      throw SqlErrors.translate("reading the copy state of streams " + ids + " on " + endpoint, e);
    }
  }

  /**
   * Stops the workflow's streams with a message (Vitess: "for cutover", "stopped for cutover").
   *
   * @return the number of streams of the workflow here
   */
  public int stop(PrimaryEndpoint endpoint, String workflow, String message, LockSet locks) {
    Names.workflow(workflow);
    return update(endpoint, locks, "stopping workflow " + workflow,
        "SET state = ?, message = ? WHERE db_name = ? AND workflow = ?" + NOT_FROZEN,
        StreamState.STOPPED.column(), truncate(message), endpoint.dbName(), workflow);
  }

  /** Stops the given streams with a message; returns how many of them exist here. */
  public int stop(PrimaryEndpoint endpoint, Collection<Integer> ids, String message, LockSet locks) {
    if (ids.isEmpty()) {
      return 0;
    }
    SortedSet<Integer> sorted = new TreeSet<>(ids);
    List<Object> args = new ArrayList<>(List.of(StreamState.STOPPED.column(), truncate(message), endpoint.dbName()));
    args.addAll(sorted);
    return update(endpoint, locks, "stopping streams " + sorted,
        "SET state = ?, message = ? WHERE db_name = ? AND id IN (" + placeholders(sorted.size()) + ")" + NOT_FROZEN,
        args.toArray());
  }

  /**
   * Starts the workflow's streams as Vitess's {@code startReverseVReplication} does: state
   * Running, message cleared, and no stop position, so they run on indefinitely.
   */
  public int start(PrimaryEndpoint endpoint, String workflow, LockSet locks) {
    Names.workflow(workflow);
    return update(endpoint, locks, "starting workflow " + workflow,
        "SET state = ?, message = '', stop_pos = NULL WHERE db_name = ? AND workflow = ?" + NOT_FROZEN,
        StreamState.RUNNING.column(), endpoint.dbName(), workflow);
  }

  /** Marks the workflow frozen ({@code message='FROZEN'}): its writes were switched, a rerun is a no-op. */
  public int freeze(PrimaryEndpoint endpoint, String workflow, LockSet locks) {
    Names.workflow(workflow);
    return update(endpoint, locks, "freezing workflow " + workflow,
        "SET message = ? WHERE db_name = ? AND workflow = ?", Stream.FROZEN, endpoint.dbName(), workflow);
  }

  /** Inserts streams in one transaction; returns their ids in order. */
  public List<Integer> insert(PrimaryEndpoint endpoint, List<NewStream> streams, LockSet locks) {
    String workflows = streams.stream().map(NewStream::workflow).distinct().collect(Collectors.joining(","));
    return fence.inTransaction(endpoint, locks, "creating streams of " + workflows, c -> insert(c, endpoint, streams));
  }

  /**
   * Deletes the workflow's streams and their copy state here.
   *
   * @return the number of streams deleted (0 when there were none: already done)
   */
  public int delete(PrimaryEndpoint endpoint, String workflow, LockSet locks) {
    Names.workflow(workflow);
    return fence.inTransaction(endpoint, locks, "deleting workflow " + workflow, c -> delete(c, endpoint, workflow));
  }

  /**
   * Replaces all streams of {@code workflow} with {@code streams} in one transaction, as Vitess's
   * {@code createReverseVReplication} first deletes the old reverse streams and then creates new
   * ones: a rerun gives the same result. Use {@link ReverseStreams} to build reverse streams.
   *
   * @return the ids of the new streams, in order
   */
  public List<Integer> replace(PrimaryEndpoint endpoint, String workflow, List<NewStream> streams, LockSet locks) {
    Names.workflow(workflow);
    for (NewStream s : streams) {
      if (!s.workflow().equals(workflow)) {
        throw PointsmanException.invalidArgument(
            "stream of workflow " + s.workflow() + " cannot replace the streams of " + workflow);
      }
    }
    return fence.inTransaction(endpoint, locks, "creating the streams of workflow " + workflow, c -> {
      int deleted = delete(c, endpoint, workflow);
      List<Integer> ids = insert(c, endpoint, streams);
      log.info("workflow {} on {}: replaced {} streams with {}", workflow, endpoint, deleted, ids);
      return ids;
    });
  }

  private List<Integer> insert(Connection c, PrimaryEndpoint endpoint, List<NewStream> streams) throws SQLException {
    for (NewStream s : streams) {
      if (!s.dbName().equals(endpoint.dbName())) {
        // Vitess's streams always write to the database of the primary they run on.
        throw PointsmanException.invalidArgument("a stream of " + s.workflow() + " writing to " + s.dbName()
            + " cannot run on " + endpoint + ", which serves " + endpoint.dbName());
      }
    }
    List<Integer> ids = new ArrayList<>();
    long now = clock.instant().getEpochSecond();
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table(endpoint, "vreplication")
        + " (workflow, source, pos, stop_pos, max_tps, max_replication_lag, cell, tablet_types, time_updated,"
        + " transaction_timestamp, state, message, db_name, workflow_type, workflow_sub_type, options)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, '', ?, ?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
      for (NewStream s : streams) {
        ps.setString(1, s.workflow());
        // As text in the session's utf8mb4, which the server stores as those bytes: given as bytes,
        // the driver hex-escapes every one (1.7 ms more per insert of a 1000-table stream's 100 KB).
        ps.setString(2, SidecarText.encodeSource(s.source()));
        ps.setString(3, s.pos().encode());
        if (s.stopPos().isZero()) {
          ps.setNull(4, Types.VARBINARY);
        } else {
          ps.setString(4, s.stopPos().encode());
        }
        ps.setLong(5, UNTHROTTLED);
        ps.setLong(6, UNTHROTTLED);
        ps.setString(7, s.cell());
        ps.setString(8, s.tabletTypes());
        ps.setLong(9, now);
        ps.setString(10, s.state().column());
        ps.setString(11, s.dbName());
        ps.setInt(12, s.workflowType().code());
        ps.setInt(13, s.workflowSubType().code());
        ps.setString(14, s.options());
        ps.executeUpdate();
        try (ResultSet keys = ps.getGeneratedKeys()) {
          keys.next();
          ids.add(keys.getInt(1));
        }
      }
    }
    return ids;
  }

  private static int delete(Connection c, PrimaryEndpoint endpoint, String workflow) throws SQLException {
    List<Integer> ids = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT id FROM " + table(endpoint, "vreplication")
        + " WHERE db_name = ? AND workflow = ? FOR UPDATE")) {
      ps.setString(1, endpoint.dbName());
      ps.setString(2, workflow);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getInt(1));
        }
      }
    }
    if (ids.isEmpty()) {
      return 0;
    }
    String in = " IN (" + placeholders(ids.size()) + ")";
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table(endpoint, "copy_state") + " WHERE vrepl_id" + in)) {
      bindInts(ps, 1, ids);
      ps.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table(endpoint, "vreplication") + " WHERE id" + in)) {
      bindInts(ps, 1, ids);
      return ps.executeUpdate();
    }
  }

  private int update(PrimaryEndpoint endpoint, LockSet locks, String action, String setAndWhere, Object... args) {
    return fence.inTransaction(endpoint, locks, action, c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE " + table(endpoint, "vreplication") + " " + setAndWhere)) {
        for (int i = 0; i < args.length; i++) {
          ps.setObject(i + 1, args[i]);
        }
        // Connector/J reports matched rows (useAffectedRows=false), so a rerun returns the same count.
        int matched = ps.executeUpdate();
        log.info("{} on {}: {} streams", action, endpoint, matched);
        return matched;
      }
    });
  }

  @FunctionalInterface
  private interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }

  private List<Stream> query(PrimaryEndpoint endpoint, String doing, String sql, Binder binder) {
    schema.ensure(endpoint);
    try (Connection c = pools.connection(endpoint); PreparedStatement ps = c.prepareStatement(sql)) {
      binder.bind(ps);
      List<StreamRow> rows = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(StreamRow.read(rs));
        }
      }
      Set<Integer> copying = copyPending(c, endpoint, rows.stream().map(StreamRow::id).toList());
      return rows.stream().map(r -> r.toStream(endpoint, copying.contains(r.id()))).toList();
    } catch (SQLException e) {
      throw SqlErrors.translate(doing + " on " + endpoint, e);
    }
  }

  private static Set<Integer> copyPending(Connection c, PrimaryEndpoint endpoint, Collection<Integer> ids)
      throws SQLException {
    if (ids.isEmpty()) {
      return Set.of();
    }
    Set<Integer> pending = new TreeSet<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT vrepl_id FROM " + table(endpoint, "copy_state")
        + " WHERE vrepl_id IN (" + placeholders(ids.size()) + ")")) {
      bindInts(ps, 1, ids);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          pending.add(rs.getInt(1));
        }
      }
    }
    return pending;
  }

  /** The raw columns of one row, decoded into a {@link Stream} once the copy state is known. */
  private record StreamRow(int id, String workflow, String source, String pos, String stopPos, String state,
      String message, String dbName, String cell, String tabletTypes, long timeUpdated, long transactionTimestamp,
      long timeHeartbeat, long rowsCopied, int workflowType, int workflowSubType, String options) {

    static StreamRow read(ResultSet rs) throws SQLException {
      return new StreamRow(rs.getInt("id"), text(rs, "workflow"), text(rs, "source"), text(rs, "pos"),
          text(rs, "stop_pos"), text(rs, "state"), text(rs, "message"), text(rs, "db_name"), text(rs, "cell"),
          text(rs, "tablet_types"), rs.getLong("time_updated"), rs.getLong("transaction_timestamp"),
          rs.getLong("time_heartbeat"), rs.getLong("rows_copied"), rs.getInt("workflow_type"),
          rs.getInt("workflow_sub_type"), text(rs, "options"));
    }

    /** Binary columns as UTF-8 text; NULL as "". */
    private static String text(ResultSet rs, String column) throws SQLException {
      byte[] b = rs.getBytes(column);
      return b == null ? "" : new String(b, StandardCharsets.UTF_8);
    }

    Stream toStream(PrimaryEndpoint endpoint, boolean copyPending) {
      String what = "stream " + id + " of workflow " + workflow + " on " + endpoint;
      BinlogSource decoded = SidecarText.decodeSource(
          endpoint.sidecarDb() + ".vreplication id " + id + " (workflow " + workflow + ") on " + endpoint, source);
      return new Stream(id, workflow, decoded,
          position(what, pos), position(what, stopPos), StreamState.fromColumn(state), message, dbName, cell,
          tabletTypes, Instant.ofEpochSecond(timeUpdated), Instant.ofEpochSecond(transactionTimestamp),
          Instant.ofEpochSecond(timeHeartbeat), rowsCopied, WorkflowType.fromCode(workflowType),
          WorkflowSubType.fromCode(workflowSubType), options.isEmpty() ? "{}" : options, copyPending);
    }

    private static Position position(String what, String encoded) {
      try {
        return Position.parse(encoded);
      } catch (PointsmanException e) {
        throw PointsmanException.internal(what + " has an unreadable position: "
            + e.getMessage(), e);
      }
    }
  }

  /** Cuts a message to Vitess's limit, counted in bytes (the column is varbinary), at a character boundary. */
  public static String truncate(String message) {
    String m = message == null ? "" : message;
    if (m.getBytes(StandardCharsets.UTF_8).length <= MAX_MESSAGE) {
      return m;
    }
    int end = 0;
    int bytes = 0;
    while (end < m.length()) {
      int cp = m.codePointAt(end);
      int len = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
      if (bytes + len > MAX_MESSAGE) {
        break;
      }
      bytes += len;
      end += Character.charCount(cp);
    }
    return m.substring(0, end);
  }

  private static String placeholders(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }

  private static void bindInts(PreparedStatement ps, int first, Collection<Integer> values) throws SQLException {
    int i = first;
    for (Integer v : values) {
      ps.setInt(i++, v);
    }
  }

  private static String table(PrimaryEndpoint endpoint, String table) {
    return SqlIdentifiers.qualified(endpoint.sidecarDb(), table);
  }
}
