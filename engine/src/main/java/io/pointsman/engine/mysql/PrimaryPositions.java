package io.pointsman.engine.mysql;

import io.pointsman.api.gtid.Position;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** Reads a primary's current replication position, as Vitess's {@code PrimaryPosition} does. */
public final class PrimaryPositions {
  private final ConnectionPools pools;
  private final Map<String, ServerFlavor> flavors = new ConcurrentHashMap<>();

  public PrimaryPositions(ConnectionPools pools) {
    this.pools = Objects.requireNonNull(pools, "pools");
  }

  /**
   * The primary's current position: {@code @@gtid_executed} on MySQL, {@code @@gtid_binlog_pos}
   * on MariaDB (every transaction written to its binlog, which is what streams read).
   */
  public Position current(PrimaryEndpoint endpoint) {
    try (Connection c = pools.connection(endpoint)) {
      ServerFlavor flavor = flavor(endpoint, c);
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT " + flavor.positionVariable())) {
        rs.next();
        String text = rs.getString(1);
        return Position.parse(flavor.gtidFlavor(), text == null ? "" : text);
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("reading the position of " + endpoint, e);
    }
  }

  /** The server flavor of the endpoint's MySQL (detected once per server and process). */
  public ServerFlavor flavor(PrimaryEndpoint endpoint) {
    try (Connection c = pools.connection(endpoint)) {
      return flavor(endpoint, c);
    } catch (SQLException e) {
      throw SqlErrors.translate("detecting the server flavor of " + endpoint, e);
    }
  }

  private ServerFlavor flavor(PrimaryEndpoint endpoint, Connection c) throws SQLException {
    ServerFlavor known = flavors.get(endpoint.address());
    if (known == null) {
      known = ServerFlavor.detect(c);
      flavors.put(endpoint.address(), known);
    }
    return known;
  }
}
