package io.pointsman.engine.mysql;

import io.pointsman.api.names.Shown;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The grants an account holds through the roles enabled for its session. information_schema's
 * privilege tables list the user's own grants only, so a role's are read with {@code SHOW GRANTS FOR
 * <role>} (allowed for a role one holds). Only global and whole-database grants are kept; table and
 * column grants never give what pointsman needs. Read-only, and silent on servers without roles.
 */
final class RoleGrants {
  private static final Logger log = LoggerFactory.getLogger(RoleGrants.class);
  /** {@code GRANT <privileges> ON *.* TO ...} or {@code ON `db`.* TO ...}. */
  private static final Pattern GRANT = Pattern.compile("^GRANT (.+?) ON (\\*\\.\\*|`((?:[^`]|``)+)`\\.\\*) TO ",
      Pattern.CASE_INSENSITIVE);

  private RoleGrants() {}

  /**
   * Adds the enabled roles' global privileges to {@code global} and their database privileges to
   * {@code schema} (rows of database, privilege), and says in {@code notes} which roles counted and
   * which are granted but not enabled at login.
   */
  static void read(Connection c, Set<String> global, List<String[]> schema, List<String> notes) {
    List<String> enabled;
    List<String> applicable;
    try {
      enabled = names(c, "SELECT ROLE_NAME FROM information_schema.ENABLED_ROLES WHERE ROLE_NAME IS NOT NULL");
      applicable = names(c, "SELECT ROLE_NAME FROM information_schema.APPLICABLE_ROLES");
    } catch (SQLException e) {
      log.debug("roles not readable on this server", e);
      return;
    }
    for (String role : enabled) {
      try (Statement st = c.createStatement();
           ResultSet rs = st.executeQuery("SHOW GRANTS FOR " + quoted(role))) {
        while (rs.next()) {
          add(rs.getString(1), global, schema);
        }
        notes.add("grants through role " + Shown.text(role) + " (enabled at login) counted");
      } catch (SQLException e) {
        notes.add("the grants of role " + Shown.text(role) + " could not be read: " + e.getMessage());
      }
    }
    for (String role : applicable) {
      if (!enabled.contains(role)) {
        notes.add("role " + Shown.text(role) + " is granted but not enabled at login, so its grants do not count:"
            + " pointsman does not run SET ROLE; make it the account's default role (SET DEFAULT ROLE "
            + Shown.text(role) + " FOR <user>)");
      }
    }
  }

  private static void add(String grant, Set<String> global, List<String[]> schema) {
    Matcher m = GRANT.matcher(grant);
    if (!m.find()) {
      return; // a role granted to the role, or a table or column grant
    }
    for (String privilege : m.group(1).split(",")) {
      String p = privilege.trim().toUpperCase(Locale.ROOT);
      if (p.isEmpty() || p.contains("(")) {
        continue;
      }
      // ALL PRIVILEGES stands for each privilege at its level, SUPER included on *.*
      List<String> each = p.equals("ALL PRIVILEGES") || p.equals("ALL") ? allPrivileges() : List.of(p);
      for (String one : each) {
        if (m.group(3) == null) {
          global.add(one);
        } else {
          schema.add(new String[] {m.group(3).replace("``", "`"), one});
        }
      }
    }
  }

  private static List<String> allPrivileges() {
    List<String> all = new ArrayList<>(
        GrantCheck.needs().stream().map(GrantCheck.Need::privilege).distinct().toList());
    all.add("SUPER");
    return all;
  }

  /** A role name from the server, quoted so that no name can end its quote. */
  private static String quoted(String role) {
    return "`" + role.replace("`", "``") + "`";
  }

  private static List<String> names(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        if (!out.contains(rs.getString(1))) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }
}
