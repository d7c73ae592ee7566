package io.pointsman.sandbox.streams;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.MariadbGtidSet;
import io.pointsman.engine.mysql.BaseTables;
import io.pointsman.engine.mysql.StreamState;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copy phase: reads every selected source table from one consistent snapshot, writes the rows
 * of the stream's key range into the target in batches (keeping {@code copy_state} and
 * {@code rows_copied} current), and ends with the stream Running at the snapshot's GTID position,
 * so replaying the binlog from there yields exactly the source's later state.
 */
final class RowCopier {
  private static final Logger log = LoggerFactory.getLogger(RowCopier.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<StreamState> MAY_START = Set.of(StreamState.INIT, StreamState.COPYING, StreamState.RUNNING);
  private static final Set<StreamState> COPYING = Set.of(StreamState.COPYING);

  private final WorkerSetup setup;
  private final Connection target;
  private final StreamGuard guard;
  private final BooleanSupplier closed;

  RowCopier(WorkerSetup setup, Connection target, StreamGuard guard, BooleanSupplier closed) {
    this.setup = setup;
    this.target = target;
    this.guard = guard;
    this.closed = closed;
  }

  /** Copies and returns the position replication starts from. */
  MariadbGtidSet copy() throws SQLException {
    SourceEndpoint src = setup.source();
    try (Connection source = Sql.connect(src.host(), src.port(), setup.user(), setup.password())) {
      MariadbGtidSet snapshot = openSnapshot(source);
      Map<String, TablePlan> plans = plan(source);
      long now = now();
      // Copying only once the snapshot exists: whatever is written from then on comes through the binlog.
      guard.inTransaction(target, MAY_START, null, row -> {
        setup.table().startCopy(target, row.id(), new ArrayList<>(plans.keySet()), now);
        return null;
      });
      log.info("stream {}: copying {} from {} at {}", setup.label(), plans.keySet(), src, snapshot);
      for (Map.Entry<String, TablePlan> e : plans.entrySet()) {
        copyTable(source, src.db(), e.getKey(), e.getValue());
      }
      String pos = MariaDbPositions.encode(snapshot);
      guard.inTransaction(target, COPYING, pos, row -> {
        setup.table().finishCopy(target, row.id(), pos, now());
        return null;
      });
      source.rollback();
      log.info("stream {}: copy done, replicating from {}", setup.label(), snapshot);
      return snapshot;
    }
  }

  /**
   * Starts the snapshot transaction and reads the GTID position it is consistent with: MariaDB
   * reports the binlog coordinates of the snapshot, and BINLOG_GTID_POS turns them into GTIDs.
   */
  private static MariadbGtidSet openSnapshot(Connection source) throws SQLException {
    try (Statement st = source.createStatement()) {
      st.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      source.setAutoCommit(false);
      st.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
      String file = null;
      long offset = -1;
      try (ResultSet rs = st.executeQuery("SHOW STATUS LIKE 'binlog_snapshot_%'")) {
        while (rs.next()) {
          if (rs.getString(1).equalsIgnoreCase("binlog_snapshot_file")) {
            file = rs.getString(2);
          } else if (rs.getString(1).equalsIgnoreCase("binlog_snapshot_position")) {
            offset = Long.parseLong(rs.getString(2));
          }
        }
      }
      if (file == null || file.isEmpty() || offset < 0) {
        throw PointsmanException.failedPrecondition(
            "the source reports no binlog snapshot position: it must be MariaDB with the binlog enabled");
      }
      try (PreparedStatement ps = source.prepareStatement("SELECT BINLOG_GTID_POS(?, ?)")) {
        ps.setString(1, file);
        ps.setLong(2, offset);
        try (ResultSet rs = ps.executeQuery()) {
          String gtids = rs.next() ? rs.getString(1) : null;
          if (gtids == null) {
            throw PointsmanException.failedPrecondition("BINLOG_GTID_POS(" + file + ", " + offset + ") has no answer");
          }
          return MariadbGtidSet.parse(gtids);
        }
      }
    }
  }

  /** The selected tables, in name order, each bound to its target table; both must have the same columns. */
  private Map<String, TablePlan> plan(Connection source) throws SQLException {
    Map<String, TablePlan> plans = new LinkedHashMap<>();
    for (String table : BaseTables.of(source, setup.source().db())) {
      var rule = setup.filter().forTable(table);
      if (rule.isEmpty()) {
        continue;
      }
      TableSchema targetSchema = setup.targetSchema(target, table);
      TableSchema sourceSchema = Sql.readSchema(source, setup.source().db(), table);
      if (!columnNames(sourceSchema).equals(columnNames(targetSchema))) {
        throw PointsmanException.invalidArgument("table " + table + " has columns " + columnNames(sourceSchema)
            + " on the source but " + columnNames(targetSchema) + " on the target");
      }
      plans.put(table, TablePlan.bind(rule.get(), targetSchema));
    }
    return plans;
  }

  private void copyTable(Connection source, String db, String table, TablePlan plan) throws SQLException {
    TableSchema schema = plan.schema();
    String cols = schema.columns().stream().map(c -> Sql.quote(c.name())).collect(Collectors.joining(", "));
    String order = schema.keyColumns().stream().map(i -> Sql.quote(schema.columns().get(i).name()))
        .collect(Collectors.joining(", "));
    String sql = "SELECT " + cols + " FROM " + Sql.quote(db) + "." + Sql.quote(table) + " ORDER BY " + order;
    List<Object[]> batch = new ArrayList<>();
    try (Statement st = source.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      // Connector/J streams a result row by row only with this fetch size; tables need not fit in memory.
      st.setFetchSize(Integer.MIN_VALUE);
      try (ResultSet rs = st.executeQuery(sql)) {
        int n = schema.columns().size();
        while (rs.next()) {
          if (closed.getAsBoolean()) {
            throw new StreamGuard.Halted("stream " + setup.label() + " is closing");
          }
          // Text-protocol bytes re-bind into any column type unchanged, whatever its character set.
          Object[] values = new Object[n];
          for (int i = 0; i < n; i++) {
            values[i] = rs.getBytes(i + 1);
          }
          if (plan.matches(values)) {
            batch.add(values);
          }
          if (batch.size() >= setup.copyBatchSize()) {
            flush(table, plan, batch);
          }
        }
      }
    }
    flush(table, plan, batch);
  }

  private void flush(String table, TablePlan plan, List<Object[]> batch) throws SQLException {
    if (batch.isEmpty()) {
      return;
    }
    String lastPk = lastPk(plan.schema(), batch.get(batch.size() - 1));
    int rows = batch.size();
    guard.inTransaction(target, COPYING, null, row -> {
      plan.writer().upsert(target, batch);
      setup.table().copyProgress(target, row.id(), table, lastPk, rows, now());
      return null;
    });
    batch.clear();
  }

  /** The key of the last copied row, as JSON (Vitess stores a text proto; only pointsman reads this). */
  private static String lastPk(TableSchema schema, Object[] row) {
    Map<String, String> pk = new LinkedHashMap<>();
    for (int i : schema.keyColumns()) {
      pk.put(schema.columns().get(i).name(), row[i] == null ? null : new String((byte[]) row[i], StandardCharsets.UTF_8));
    }
    try {
      return JSON.writeValueAsString(pk);
    } catch (JsonProcessingException e) {
      throw PointsmanException.internal("cannot encode a primary key", e);
    }
  }

  private static List<String> columnNames(TableSchema s) {
    return s.columns().stream().map(c -> c.name().toLowerCase(Locale.ROOT)).toList();
  }

  private static long now() {
    return System.currentTimeMillis() / 1000;
  }
}
