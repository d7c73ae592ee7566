package io.pointsman.e2e;

import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.SqlIdentifiers;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a switch changes on one shard primary, as comparable text: the stream columns only switching
 * touches, the journal rows and the tables under a write barrier. Snapshots compare these lists.
 */
public final class PrimaryRows {
  private static final int ER_NO_SUCH_TABLE = 1146;

  private PrimaryRows() {}

  public static List<String> of(Services services, PrimaryEndpoint ep) throws SQLException {
    List<String> rows = new ArrayList<>();
    String sidecar = ep.sidecarDb();
    try (Connection c = services.pools().connection(ep)) {
      query(c, "SELECT id, workflow, source, state, message, stop_pos, db_name FROM "
          + SqlIdentifiers.qualified(sidecar, "vreplication") + " ORDER BY id", "stream", rows);
      query(c, "SELECT id, db_name, val FROM " + SqlIdentifiers.qualified(sidecar, "resharding_journal")
          + " ORDER BY id", "journal", rows);
    }
    services.barrier().deniedTables(ep).forEach(t -> rows.add("barrier " + t));
    return rows;
  }

  private static void query(Connection c, String sql, String label, List<String> rows) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder(label);
        for (int i = 1; i <= columns; i++) {
          byte[] b = rs.getBytes(i);
          row.append(' ').append(rs.getMetaData().getColumnLabel(i)).append('=')
              .append(b == null ? "NULL" : new String(b, StandardCharsets.UTF_8));
        }
        rows.add(row.toString());
      }
    } catch (SQLException e) {
      if (e.getErrorCode() != ER_NO_SUCH_TABLE) {
        throw e;
      }
      // the sidecar table is created on first use: none yet means no rows
    }
  }
}
