package io.pointsman.sandbox.streams;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Writes rows into one target table, identified by its primary key (or by all columns, null-safe,
 * one row at a time, when it has none). Values are in the table's column order; generated columns
 * are left to MySQL. Inserts are upserts so a copy batch or transaction seen twice converges.
 */
final class TableWriter {
  private final TableSchema schema;
  private final List<Integer> writable;
  private final boolean hasPrimaryKey;
  private final String insertPrefix;
  private final String onDuplicate;
  private final String rowPlaceholders;
  private final String updateSql;
  private final String deleteSql;

  TableWriter(TableSchema schema) {
    this.schema = schema;
    this.writable = schema.writableColumns();
    this.hasPrimaryKey = schema.hasPrimaryKey();
    String cols = writable.stream().map(i -> Sql.quote(name(i))).collect(Collectors.joining(", "));
    this.insertPrefix = "INSERT INTO " + schema.qualifiedName() + " (" + cols + ") VALUES ";
    this.rowPlaceholders = "(" + writable.stream().map(i -> "?").collect(Collectors.joining(", ")) + ")";
    String set = writable.stream().map(i -> Sql.quote(name(i)) + " = VALUES(" + Sql.quote(name(i)) + ")")
        .collect(Collectors.joining(", "));
    this.onDuplicate = " ON DUPLICATE KEY UPDATE " + set;
    String eq = hasPrimaryKey ? " = ?" : " <=> ?";
    String where = schema.keyColumns().stream().map(i -> Sql.quote(name(i)) + eq).collect(Collectors.joining(" AND "));
    String limit = hasPrimaryKey ? "" : " LIMIT 1";
    this.updateSql = "UPDATE " + schema.qualifiedName() + " SET "
        + writable.stream().map(i -> Sql.quote(name(i)) + " = ?").collect(Collectors.joining(", "))
        + " WHERE " + where + limit;
    this.deleteSql = "DELETE FROM " + schema.qualifiedName() + " WHERE " + where + limit;
  }

  TableSchema schema() {
    return schema;
  }

  /** Inserts the rows, replacing any with the same key, in one statement. */
  void upsert(Connection c, List<Object[]> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    StringBuilder sql = new StringBuilder(insertPrefix);
    for (int r = 0; r < rows.size(); r++) {
      sql.append(r == 0 ? "" : ", ").append(rowPlaceholders);
    }
    if (hasPrimaryKey) {
      sql.append(onDuplicate);
    }
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      int p = 1;
      for (Object[] row : rows) {
        for (int i : writable) {
          ps.setObject(p++, row[i]);
        }
      }
      ps.executeUpdate();
    }
  }

  /** Updates the row {@code before} identifies to {@code after}; returns how many rows matched. */
  int update(Connection c, Object[] before, Object[] after) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(updateSql)) {
      int p = 1;
      for (int i : writable) {
        ps.setObject(p++, after[i]);
      }
      for (int i : schema.keyColumns()) {
        ps.setObject(p++, before[i]);
      }
      return ps.executeUpdate();
    }
  }

  void delete(Connection c, Object[] before) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(deleteSql)) {
      int p = 1;
      for (int i : schema.keyColumns()) {
        ps.setObject(p++, before[i]);
      }
      ps.executeUpdate();
    }
  }

  private String name(int i) {
    return schema.columns().get(i).name();
  }
}
