package io.pointsman.engine.testing;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.topo.TabletAlias;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB of a test's own set up as a production primary is: TLS only
 * ({@code require_secure_transport}) with a server certificate of the test's CA, the binary log on,
 * and the accounts and databases {@code initSql} creates (run by the server at start, as root).
 * It always has an {@code admin} account ({@link #ADMIN}, all privileges, REQUIRE SSL) for setup.
 */
public final class SecureMariaDb implements AutoCloseable {
  public static final String ADMIN = "admin";

  private final Path dir;
  private final String adminPassword;
  private final int port;
  private final Process mariadbd;

  private SecureMariaDb(Path dir, String adminPassword, int port, Process mariadbd) {
    this.dir = dir;
    this.adminPassword = adminPassword;
    this.port = port;
    this.mariadbd = mariadbd;
  }

  /**
   * Installs a data folder in {@code dir}, starts mariadbd on a free loopback port and waits until
   * {@link #ADMIN} can log in over TLS.
   *
   * @param server the server certificate (its SANs decide what VERIFY_IDENTITY accepts)
   * @param initSql statements run once at start, e.g. the pointsman account and its grants
   */
  public static SecureMariaDb start(Path dir, TestCertificates ca, TestCertificates.Issued server,
      String adminPassword, List<String> initSql) throws Exception {
    Files.createDirectories(dir);
    int port = LoopbackPorts.freePort();
    String osUser = System.getProperty("user.name");
    run(List.of(TestServices.mariadbInstallDbBinary(), "--no-defaults", "--datadir=" + dir.resolve("data"),
        "--user=" + osUser, "--auth-root-authentication-method=normal", "--skip-test-db"), dir.resolve("install.log"));
    List<String> init = new ArrayList<>();
    init.add("CREATE USER '" + ADMIN + "'@'%' IDENTIFIED BY '" + adminPassword + "' REQUIRE SSL;");
    init.add("GRANT ALL PRIVILEGES ON *.* TO '" + ADMIN + "'@'%';");
    init.addAll(initSql);
    Path initFile = dir.resolve("init.sql");
    Files.writeString(initFile, String.join("\n", init) + "\n");
    Process mariadbd = new ProcessBuilder(List.of(TestServices.mariadbdBinary(), "--no-defaults",
            "--datadir=" + dir.resolve("data"), "--user=" + osUser, "--bind-address=127.0.0.1",
            "--port=" + port, "--socket=" + dir.resolve("mysql.sock"), "--pid-file=" + dir.resolve("mysql.pid"),
            "--log-bin=mysql-bin", "--server-id=1", "--binlog-format=ROW", "--skip-name-resolve",
            "--require-secure-transport=ON", "--ssl-ca=" + ca.caCert(), "--ssl-cert=" + server.cert(),
            "--ssl-key=" + server.key(), "--init-file=" + initFile,
            // triggers with the binary log on need SUPER unless the server trusts trigger creators
            "--log-bin-trust-function-creators=OFF"))
        .redirectErrorStream(true).redirectOutput(dir.resolve("mysql.log").toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    SecureMariaDb db = new SecureMariaDb(dir, adminPassword, port, mariadbd);
    try {
      db.awaitReady();
    } catch (Exception | Error e) {
      db.close();
      throw e;
    }
    return db;
  }

  /**
   * An account that must use TLS and holds exactly the grants the README's "Running securely" lists
   * for one data database and the sidecar database.
   */
  public static List<String> pointsmanAccount(String user, String password, String dataDb, String sidecarDb) {
    String account = "'" + user + "'@'%'";
    return List.of(
        "CREATE USER " + account + " IDENTIFIED BY '" + password + "' REQUIRE SSL;",
        // the sidecar database: pointsman creates it and its tables, and reads and writes them
        "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON `" + sidecarDb + "`.* TO " + account + ";",
        // the data database: barrier triggers, LOCK TABLES drain, Complete's drops and renames
        "GRANT SELECT, TRIGGER, LOCK TABLES, DROP, ALTER, CREATE, INSERT ON `" + dataDb + "`.* TO " + account + ";",
        // naming the transactions a drain waits for
        "GRANT PROCESS ON *.* TO " + account + ";");
  }

  public int port() {
    return port;
  }

  /** A primary endpoint of this server for {@code database}, reached as {@code host}. */
  public PrimaryEndpoint endpoint(String host, String database) {
    return new PrimaryEndpoint("customer", "0", new TabletAlias("zone1", 100), host, port, database, "_vt");
  }

  /** Runs statements as {@link #ADMIN}. */
  public void admin(String... statements) throws Exception {
    MySqlOptions admin = MySqlOptions.builder().user(ADMIN).password(adminPassword)
        .tlsMode(MySqlOptions.TlsMode.REQUIRED).connectTimeout(Duration.ofSeconds(3)).build();
    try (ConnectionPools pools = new ConnectionPools(admin);
         Connection c = pools.dedicatedConnection(endpoint("127.0.0.1", "mysql"));
         Statement st = c.createStatement()) {
      for (String s : statements) {
        st.execute(s);
      }
    }
  }

  @Override
  public void close() throws Exception {
    if (mariadbd.isAlive()) {
      mariadbd.destroy();
      if (!mariadbd.waitFor(60, TimeUnit.SECONDS)) {
        mariadbd.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private void awaitReady() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (true) {
      if (!mariadbd.isAlive()) {
        throw new IOException("mariadbd exited: " + Files.readString(dir.resolve("mysql.log")));
      }
      try {
        admin();
        return;
      } catch (PointsmanException e) {
        if (System.nanoTime() > deadline) {
          throw new IOException("MariaDB was not ready: " + e.getMessage() + "\n"
              + Files.readString(dir.resolve("mysql.log")), e);
        }
        Thread.sleep(200);
      }
    }
  }

  private static void run(List<String> command, Path log) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException(command.get(0) + " failed: " + Files.readString(log));
    }
  }
}
