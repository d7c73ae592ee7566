package io.pointsman.engine.mysql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which of the grants pointsman needs on a shard primary (README, "Running securely") the connected
 * account holds, read from {@code information_schema} (its own rows: any account may read them)
 * and from the grants of the roles enabled at login, without trying anything. A database grant
 * whose name has wildcards ({@code vt\_%}) counts for the databases it matches, a global grant for
 * all. pointsman never runs {@code SET ROLE}, so a role counts only when it is the account's
 * default role; one granted but not enabled is named in the notes.
 */
public final class GrantCheck {
  /** Where a grant must apply. */
  public enum Scope { SIDECAR, DATA, GLOBAL }

  /** One privilege pointsman needs, where, and what for. */
  public record Need(String privilege, Scope scope, String why) {
    /** E.g. {@code TRIGGER on `vt_customer`.*}. */
    public String describe(PrimaryEndpoint ep) {
      String on = switch (scope) {
        case SIDECAR -> "`" + ep.sidecarDb() + "`.*";
        case DATA -> "`" + ep.dbName() + "`.*";
        case GLOBAL -> "*.*";
      };
      return privilege + " on " + on;
    }
  }

  /**
   * @param needed what pointsman needs on this server
   * @param missing what the account lacks of it, each with what it is for
   * @param notes facts that decide whether a grant is enough, e.g. the binary log and triggers
   */
  public record Result(List<Need> needed, List<Need> missing, List<String> notes) {}

  private GrantCheck() {}

  /** What pointsman needs on a primary, MySQL 8 or MariaDB alike. */
  public static List<Need> needs() {
    List<Need> needs = new ArrayList<>();
    for (String p : List.of("SELECT", "INSERT", "UPDATE", "DELETE")) {
      needs.add(new Need(p, Scope.SIDECAR, "the fence table, positions, journals and streams"));
    }
    needs.add(new Need("CREATE", Scope.SIDECAR, "creating the sidecar database and pointsman's tables"));
    needs.add(new Need("TRIGGER", Scope.DATA, "the write barrier's deny triggers"));
    needs.add(new Need("SELECT", Scope.DATA, "the barrier's LOCK TABLES drain"));
    needs.add(new Need("LOCK TABLES", Scope.DATA, "the barrier's LOCK TABLES drain"));
    needs.add(new Need("DROP", Scope.DATA, "Complete's DROP TABLE and RENAME TABLE"));
    needs.add(new Need("ALTER", Scope.DATA, "Complete's RENAME TABLE"));
    needs.add(new Need("CREATE", Scope.DATA, "Complete's RENAME TABLE"));
    needs.add(new Need("INSERT", Scope.DATA, "Complete's RENAME TABLE"));
    needs.add(new Need("PROCESS", Scope.GLOBAL, "naming the transactions a drain waits for"));
    // No BINLOG ADMIN (MariaDB) or SYSTEM_VARIABLES_ADMIN (MySQL 8): the barrier's DDL goes to the
    // binary log so that replicas have it (WriteBarrier), and only keeping it out would need them.
    return needs;
  }

  /** Reads the account's grants over {@code c} and compares them with {@link #needs}. */
  public static Result check(Connection c, PrimaryEndpoint ep) throws SQLException {
    ServerFlavor flavor = ServerFlavor.detect(c);
    String grantee = grantee(c);
    Set<String> global = new HashSet<>();
    TextColumn.read(c, new ArrayList<>(),
        "SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = ?", grantee)
        .forEach(p -> global.add(p.toUpperCase(Locale.ROOT)));
    List<String[]> schema = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT TABLE_SCHEMA, PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = ?")) {
      ps.setString(1, grantee);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          schema.add(new String[] {rs.getString(1), rs.getString(2).toUpperCase(Locale.ROOT)});
        }
      }
    }
    List<String> notes = new ArrayList<>();
    RoleGrants.read(c, global, schema, notes);
    List<Need> needed = new ArrayList<>(needs());
    List<Need> missing = new ArrayList<>();
    for (Need n : needed) {
      boolean held = global.contains(n.privilege())
          || (flavor == ServerFlavor.MYSQL && n.scope() == Scope.GLOBAL && n.privilege().endsWith("_ADMIN")
              && global.contains("SUPER"))
          || (n.scope() != Scope.GLOBAL && schema.stream().anyMatch(row -> row[1].equals(n.privilege())
              && likeMatches(row[0], n.scope() == Scope.SIDECAR ? ep.sidecarDb() : ep.dbName())));
      if (!held) {
        missing.add(n);
      }
    }
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@GLOBAL.log_bin, @@GLOBAL.log_bin_trust_function_creators")) {
      rs.next();
      boolean binlog = rs.getInt(1) != 0;
      boolean trusted = rs.getInt(2) != 0;
      if (binlog && !trusted) {
        Need superPriv = new Need("SUPER", Scope.GLOBAL, "creating triggers with the binary log on; or set "
            + "log_bin_trust_function_creators = ON on the server");
        needed.add(superPriv);
        if (!global.contains("SUPER")) {
          missing.add(superPriv);
        }
      } else if (binlog) {
        notes.add("binary log on, log_bin_trust_function_creators = ON: triggers need no SUPER");
      }
    }
    return new Result(List.copyOf(needed), List.copyOf(missing), List.copyOf(notes));
  }

  /** {@code 'user'@'host'} as information_schema writes the current account. */
  private static String grantee(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT CURRENT_USER()")) {
      rs.next();
      String account = rs.getString(1);
      int at = account.lastIndexOf('@');
      return "'" + account.substring(0, at) + "'@'" + account.substring(at + 1) + "'";
    }
  }

  /** Whether a database name in a grant ({@code %} and {@code _} wildcards, {@code \} escapes) covers {@code db}. */
  static boolean likeMatches(String pattern, String db) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char ch = pattern.charAt(i);
      if (ch == '\\' && i + 1 < pattern.length()) {
        regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
      } else if (ch == '%') {
        regex.append(".*");
      } else if (ch == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(String.valueOf(ch)));
      }
    }
    return Pattern.matches(regex.toString(), db);
  }
}
