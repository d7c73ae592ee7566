package io.pointsman.engine.mysql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;

/** Reads the first column of a query's rows as text: how the catalog and pointsman's own tables list names. */
final class TextColumn {
  private TextColumn() {}

  /**
   * Runs {@code sql} with {@code params} bound in order and adds each row's first column to {@code into}.
   *
   * @return {@code into}
   */
  static <C extends Collection<String>> C read(Connection c, C into, String sql, String... params)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setString(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          into.add(rs.getString(1));
        }
      }
    }
    return into;
  }
}
