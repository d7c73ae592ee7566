package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import java.util.regex.Pattern;

/**
 * The MySQL account the sandbox creates on every primary and everything else (stream runner,
 * router, workflows) connects with. The password never appears in {@link #toString()}.
 */
public record MysqlCredentials(String user, String password) {
  /** The account of the Vitess-shaped sandbox: all privileges, replication included. */
  public static final String DEFAULT_USER = "pointsman";
  /**
   * The default password of a throw-away sandbox whose servers listen on loopback only; set your
   * own with {@code --mysql-password} or {@value #PASSWORD_ENV} when that matters.
   */
  public static final String DEFAULT_PASSWORD = "pointsman-sandbox";
  public static final String PASSWORD_ENV = "POINTSMAN_SANDBOX_MYSQL_PASSWORD";

  private static final Pattern USER = Pattern.compile("[A-Za-z0-9_]{1,32}");

  public MysqlCredentials {
    if (user == null || !USER.matcher(user).matches()) {
      throw PointsmanException.invalidArgument(
          "MySQL user must be 1 to 32 letters, digits or '_', not '" + user + "'");
    }
    if (password == null || password.isEmpty()) {
      throw PointsmanException.invalidArgument("MySQL password of " + user + " is empty");
    }
    // The password goes into a one-statement-per-line init file of mariadbd.
    if (password.chars().anyMatch(Character::isISOControl)) {
      throw PointsmanException.invalidArgument("MySQL password of " + user + " contains control characters");
    }
  }

  /** The default account, with the password from {@value #PASSWORD_ENV} when it is set. */
  public static MysqlCredentials defaults() {
    String env = System.getenv(PASSWORD_ENV);
    return new MysqlCredentials(DEFAULT_USER, env == null || env.isEmpty() ? DEFAULT_PASSWORD : env);
  }

  @Override
  public String toString() {
    return "MysqlCredentials{user=" + user + ", password=****}";
  }
}
