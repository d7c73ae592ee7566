package io.pointsman.engine.mysql;

import io.pointsman.api.names.Names;

/**
 * Identifiers for SQL text. Names are validated with {@link Names} (letters, digits, '_' and '$'
 * only, at most 64 characters) and then backtick-quoted, so a hostile name is refused before it
 * reaches a statement and a valid one can never close its quote. Values always go through
 * PreparedStatement parameters instead.
 */
public final class SqlIdentifiers {
  private SqlIdentifiers() {}

  /** A quoted database name: {@code `vt_customer`}. */
  public static String database(String name) {
    return "`" + Names.database(name) + "`";
  }

  /** A quoted table name: {@code `customer`}. */
  public static String table(String name) {
    return "`" + Names.table(name) + "`";
  }

  /** A quoted column name: {@code `customer_id`}. */
  public static String column(String name) {
    return "`" + Names.column(name) + "`";
  }

  /** A quoted, database-qualified table name: {@code `vt_customer`.`customer`}. */
  public static String qualified(String database, String table) {
    return database(database) + "." + table(table);
  }
}
