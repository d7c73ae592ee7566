package io.pointsman.engine.tablet;

import io.pointsman.api.errors.PointsmanException;

/**
 * One statement for ExecuteFetchAsDba: run by the tablet as its DBA user on its own connection
 * (vttablet refuses several statements in one call since v23, and parses the statement with
 * Vitess's SQL parser first).
 *
 * @param sql the statement (several, separated by {@code ;}, for ExecuteMultiFetchAsDba)
 * @param database database to {@code USE} first; empty for none
 * @param maxRows the tablet fails the call if the result has more rows
 * @param disableBinlogs run with {@code sql_log_bin = OFF} (replicas will not see the change)
 * @param reloadSchema make the tablet reload its schema afterwards (after DDL on served tables)
 * @param disableForeignKeyChecks run with {@code foreign_key_checks = 0}, as vtctld drops a workflow's
 *     tables: tables that reference each other can then go in any order
 */
public record DbaQuery(String sql, String database, int maxRows, boolean disableBinlogs, boolean reloadSchema,
    boolean disableForeignKeyChecks) {
  public static final int DEFAULT_MAX_ROWS = 10_000;

  public DbaQuery {
    if (sql == null || sql.isBlank()) {
      throw PointsmanException.invalidArgument("DBA statement is empty");
    }
    database = database == null ? "" : database;
    if (maxRows < 0) {
      throw PointsmanException.invalidArgument("maxRows must not be negative, got " + maxRows);
    }
  }

  /** A statement with foreign key checks on. */
  public DbaQuery(String sql, String database, int maxRows, boolean disableBinlogs, boolean reloadSchema) {
    this(sql, database, maxRows, disableBinlogs, reloadSchema, false);
  }

  /** A binlogged statement with no default database. */
  public static DbaQuery of(String sql) {
    return new DbaQuery(sql, "", DEFAULT_MAX_ROWS, false, false);
  }
}
