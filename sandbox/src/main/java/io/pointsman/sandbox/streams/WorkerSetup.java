package io.pointsman.sandbox.streams;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What one run of a stream worker resolved before moving data: where the source is, which rows the
 * stream carries, where they go, and the target tables' plans (read once per table; the schema is
 * the same on both sides, and binlog rows carry no column names).
 */
final class WorkerSetup {
  private final StreamTable table;
  private final String label;
  private final SourceEndpoint source;
  private final StreamFilter filter;
  private final String targetDb;
  private final String user;
  private final String password;
  private final int copyBatchSize;
  private final Map<String, Optional<TablePlan>> plans = new HashMap<>();

  WorkerSetup(StreamTable table, String label, SourceEndpoint source, StreamFilter filter, String targetDb,
      String user, String password, int copyBatchSize) {
    this.table = table;
    this.label = label;
    this.source = source;
    this.filter = filter;
    this.targetDb = targetDb;
    this.user = user;
    this.password = password;
    this.copyBatchSize = copyBatchSize;
  }

  StreamTable table() {
    return table;
  }

  String label() {
    return label;
  }

  SourceEndpoint source() {
    return source;
  }

  StreamFilter filter() {
    return filter;
  }

  String targetDb() {
    return targetDb;
  }

  String user() {
    return user;
  }

  String password() {
    return password;
  }

  int copyBatchSize() {
    return copyBatchSize;
  }

  TableSchema targetSchema(Connection target, String sourceTable) throws SQLException {
    return Sql.readSchema(target, targetDb, sourceTable);
  }

  /** How rows of a source table are applied, or empty when the stream does not carry the table. */
  Optional<TablePlan> plan(Connection target, String sourceTable) throws SQLException {
    Optional<TablePlan> cached = plans.get(sourceTable);
    if (cached != null) {
      return cached;
    }
    Optional<StreamFilter.TableRule> rule = filter.forTable(sourceTable);
    Optional<TablePlan> plan = rule.isEmpty() ? Optional.empty()
        : Optional.of(TablePlan.bind(rule.get(), targetSchema(target, sourceTable)));
    plans.put(sourceTable, plan);
    return plan;
  }
}
