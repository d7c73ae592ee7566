package io.pointsman.worker.check;

import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.GrantCheck;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks one shard primary with the MySQL settings: that the account connects (with TLS as
 * MYSQL_TLS_MODE asks, and which cipher it got), and that it holds each grant pointsman needs there
 * ({@link GrantCheck}), each missing one named with what it is for. Reads only.
 */
final class MySqlAccess {
  private MySqlAccess() {}

  static ServiceReport check(ConnectionPools pools, PrimaryEndpoint ep, String label) {
    MySqlOptions options = pools.options();
    String service = "mysql " + label + " " + ep.address() + " (user " + options.user() + ", MYSQL_TLS_MODE="
        + options.tlsMode() + ")";
    List<Finding> findings = new ArrayList<>();
    try (Connection c = pools.dedicatedConnection(ep)) {
      String cipher = cipher(c);
      boolean tlsWanted = options.tlsMode() != MySqlOptions.TlsMode.DISABLED
          && options.tlsMode() != MySqlOptions.TlsMode.PREFERRED;
      if (cipher.isEmpty()) {
        findings.add(tlsWanted ? Finding.missing("connect", "connected without TLS although MYSQL_TLS_MODE="
            + options.tlsMode()) : Finding.ok("connect", "without TLS (MYSQL_TLS_MODE=" + options.tlsMode() + ")"));
      } else {
        findings.add(Finding.ok("connect", "TLS, cipher " + cipher + (options.tlsMode() == MySqlOptions.TlsMode
            .VERIFY_IDENTITY ? ", server certificate names " + ep.host()
            : options.tlsMode() == MySqlOptions.TlsMode.VERIFY_CA ? ", server certificate of MYSQL_TLS_CA_FILE"
            : ", server certificate not verified")));
      }
      GrantCheck.Result grants = GrantCheck.check(c, ep);
      int held = grants.needed().size() - grants.missing().size();
      findings.add(Finding.ok("grants", held + " of the " + grants.needed().size() + " pointsman needs are held"));
      grants.missing().forEach(n -> findings.add(Finding.missing(n.describe(ep), n.why())));
      grants.notes().forEach(n -> findings.add(Finding.ok("grants", n)));
    } catch (RuntimeException | SQLException e) {
      findings.add(Finding.missing(findings.isEmpty() ? "connect" : "reading the grants",
          e.getMessage() == null ? e.toString() : e.getMessage()));
    }
    return new ServiceReport(service, findings);
  }

  private static String cipher(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) {
      return rs.next() && rs.getString(2) != null ? rs.getString(2) : "";
    }
  }
}
