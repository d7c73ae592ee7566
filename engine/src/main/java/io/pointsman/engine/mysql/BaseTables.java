package io.pointsman.engine.mysql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The base tables of a database (its views left out), as information_schema lists them. */
public final class BaseTables {
  private BaseTables() {}

  /** The base tables of {@code db}, sorted by name. */
  public static List<String> of(Connection c, String db) throws SQLException {
    return TextColumn.read(c, new ArrayList<>(), "SELECT table_name FROM information_schema.tables"
        + " WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name", db);
  }
}
