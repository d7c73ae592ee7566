package io.pointsman.api.names;

import io.pointsman.api.errors.PointsmanException;
import java.util.regex.Pattern;

/**
 * Validation of the names that end up in etcd keys and MySQL statements. The rules follow Vitess
 * (keyspace, shard and cell names are ASCII letters, digits, '_' and '-'; a shard name with a '-'
 * is a key range of lowercase hex bounds), kept strict so that no name can escape its key path or
 * its quoted identifier. Every method returns its argument so it can be used inline.
 */
public final class Names {
  /** MySQL's identifier limit, which Vitess applies to keyspaces too. */
  public static final int MAX_LENGTH = 64;

  private static final Pattern OBJECT = Pattern.compile("[A-Za-z0-9_-]+");
  private static final Pattern TABLE = Pattern.compile("[A-Za-z0-9_$]+");
  private static final Pattern KEY_RANGE = Pattern.compile("([0-9a-f]*)-([0-9a-f]*)");

  private Names() {}

  public static String keyspace(String name) {
    return object("keyspace", name);
  }

  public static String cell(String name) {
    return object("cell", name);
  }

  /** A VReplication workflow name, e.g. {@code commerce2customer} or {@code commerce2customer_reverse}. */
  public static String workflow(String name) {
    return object("workflow", name);
  }

  /** A shard name: {@code 0}, {@code -80}, {@code 80-}, {@code 80-c0}, {@code -} or another plain name. */
  public static String shard(String name) {
    object("shard", name);
    if (name.indexOf('-') >= 0) {
      var m = KEY_RANGE.matcher(name);
      if (!m.matches()) {
        throw PointsmanException.invalidArgument(
            "shard name '" + name + "' is not a key range: expected lowercase hex bounds such as -80, 80-c0 or c0-");
      }
      String start = m.group(1);
      String end = m.group(2);
      if (!start.isEmpty() && !end.isEmpty() && compareHexBounds(start, end) >= 0) {
        throw PointsmanException.invalidArgument(
            "shard name '" + name + "' is not a key range: its start must be below its end");
      }
    }
    return name;
  }

  /** A MySQL table name; quotes, backticks, dots, slashes and spaces are refused rather than quoted. */
  public static String table(String name) {
    return identifier("table", name);
  }

  /** A MySQL column name (a VSchema's auto-increment column); the same rules as a table name. */
  public static String column(String name) {
    return identifier("column", name);
  }

  /** A MySQL database name (Vitess's {@code vt_<keyspace>} or a db_name_override). */
  public static String database(String name) {
    return identifier("database", name);
  }

  /** Compares two key-range bounds the way Vitess compares keyspace ids: as left-aligned hex bytes. */
  public static int compareHexBounds(String a, String b) {
    int len = Math.max(a.length(), b.length());
    String pa = padRight(a, len);
    String pb = padRight(b, len);
    return pa.compareTo(pb);
  }

  private static String padRight(String s, int len) {
    StringBuilder sb = new StringBuilder(s);
    while (sb.length() < len) {
      sb.append('0');
    }
    return sb.toString();
  }

  private static String object(String kind, String name) {
    checkPresent(kind, name);
    if (!OBJECT.matcher(name).matches()) {
      throw PointsmanException.invalidArgument(
          kind + " name '" + printable(name) + "' contains characters other than letters, digits, '_' and '-'");
    }
    return name;
  }

  private static String identifier(String kind, String name) {
    checkPresent(kind, name);
    if (!TABLE.matcher(name).matches()) {
      throw PointsmanException.invalidArgument(
          kind + " name '" + printable(name) + "' contains characters other than letters, digits, '_' and '$'");
    }
    return name;
  }

  private static void checkPresent(String kind, String name) {
    if (name == null || name.isEmpty()) {
      throw PointsmanException.invalidArgument(kind + " name is empty");
    }
    if (name.length() > MAX_LENGTH) {
      throw PointsmanException.invalidArgument(
          kind + " name '" + printable(name.substring(0, 20)) + "...' is " + name.length()
              + " characters long; the limit is " + MAX_LENGTH);
    }
  }

  /** Keeps error messages on one line and free of control characters whatever the input was. */
  static String printable(String s) {
    return Shown.text(s, Integer.MAX_VALUE);
  }
}
