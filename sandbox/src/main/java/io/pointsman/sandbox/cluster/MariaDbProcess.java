package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.net.LoopbackPorts;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MariaDB server on a loopback port, shaped like a Vitess shard primary: binary log on, row
 * format, strict GTIDs (domain 0, its own server_id), utf8mb4, and an account with every privilege
 * (replication included). {@link #launch} initialises the data folder on first use and starts the
 * server; {@link #awaitReady} waits until the account can log in. {@link #close} stops it (SIGTERM,
 * then SIGKILL), as does any failure while starting, so a failed start leaves nothing running.
 */
public final class MariaDbProcess implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MariaDbProcess.class);
  private static final Duration READY_POLL = Duration.ofMillis(100);
  private static final Duration READY_CONNECT_TIMEOUT = Duration.ofSeconds(1);
  private static final int LOG_TAIL_LINES = 15;
  // A smaller redo log than the 96M default: seven sandbox servers need not write 700 MB to start.
  private static final String REDO_LOG_SIZE = "--innodb-log-file-size=32M";

  private final MariaDbOptions options;
  private final Process process;
  private volatile boolean closed;

  private MariaDbProcess(MariaDbOptions options, Process process) {
    this.options = options;
    this.process = process;
  }

  /** Launches and waits until the server accepts the account's login. */
  public static MariaDbProcess start(MariaDbOptions options) {
    return launch(options).awaitReady();
  }

  /**
   * Initialises the data folder if needed and starts mariadbd without waiting for it; call
   * {@link #awaitReady} next (launching several servers before waiting overlaps their start-up).
   *
   * @throws PointsmanException FAILED_PRECONDITION if the port is taken or initialisation fails
   */
  public static MariaDbProcess launch(MariaDbOptions options) {
    if (LoopbackPorts.isListening(options.port())) {
      throw PointsmanException.failedPrecondition("port " + options.port()
          + " is already in use; stop what listens there or let the sandbox reuse running servers");
    }
    try {
      Files.createDirectories(options.folder());
      installIfNeeded(options);
      Files.createDirectories(options.tmpDir());
      writeInitFile(options);
    } catch (IOException e) {
      throw new PointsmanException(ErrorCode.FAILED_PRECONDITION,
          "cannot prepare MariaDB folder " + options.folder() + ": " + e.getMessage(), e);
    }
    List<String> command = List.of(
        options.mariadbdBinary(),
        "--no-defaults", // must come first: no my.cnf of the machine may change the sandbox
        "--datadir=" + options.dataDir(),
        "--user=" + options.osUser(),
        "--bind-address=127.0.0.1",
        "--port=" + options.port(),
        "--socket=" + options.socket(),
        "--pid-file=" + options.pidFile(),
        "--log-bin=mysql-bin",
        "--server-id=" + options.serverId(),
        "--binlog-format=ROW",
        "--log-slave-updates",
        "--gtid-strict-mode=1",
        "--skip-name-resolve",
        "--character-set-server=utf8mb4",
        "--collation-server=utf8mb4_general_ci",
        "--tmpdir=" + options.tmpDir(),
        REDO_LOG_SIZE,
        "--init-file=" + options.initFile());
    Process p;
    try {
      p = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(options.log().toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .start();
    } catch (IOException e) {
      deleteQuietly(options.initFile());
      throw PointsmanException.failedPrecondition("cannot start " + options.mariadbdBinary() + ": " + e.getMessage());
    }
    log.info("started mariadbd pid {} on 127.0.0.1:{} (server_id {}, folder {})",
        p.pid(), options.port(), options.serverId(), options.folder());
    return new MariaDbProcess(options, p);
  }

  /**
   * Waits until the account logs in, then removes the init file that created it.
   *
   * @throws PointsmanException UNAVAILABLE if the server exits or is not ready in time (it is stopped)
   */
  public MariaDbProcess awaitReady() {
    long deadline = System.nanoTime() + options.startTimeout().toNanos();
    SQLException last = null;
    try {
      while (true) {
        if (!process.isAlive()) {
          throw failure("mariadbd exited with status " + process.exitValue() + " while starting", null);
        }
        try (Connection c = Jdbc.tryOpen("127.0.0.1", options.port(), options.credentials(), READY_CONNECT_TIMEOUT);
             Statement s = c.createStatement()) {
          s.execute("SELECT 1");
          log.info("MariaDB on 127.0.0.1:{} is ready", options.port());
          return this;
        } catch (SQLException e) {
          last = e;
        }
        if (System.nanoTime() - deadline > 0) {
          throw failure("MariaDB on port " + options.port() + " was not ready within " + options.startTimeout(), last);
        }
        Thread.sleep(READY_POLL.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failure("interrupted while waiting for MariaDB on port " + options.port(), e);
    } finally {
      deleteQuietly(options.initFile());
    }
  }

  public long pid() {
    return process.pid();
  }

  public int port() {
    return options.port();
  }

  public MariaDbOptions options() {
    return options;
  }

  public boolean isRunning() {
    return ProcessControl.isRunning(process.toHandle());
  }

  /** The text that identifies this server's command line, for stopping it by PID from elsewhere. */
  public static String commandLineMarker(Path folder) {
    return "--datadir=" + folder.toAbsolutePath().normalize().resolve("data");
  }

  /** Stops the server: SIGTERM, then SIGKILL after the stop timeout. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      StopOutcome outcome = ProcessControl.stop(process.toHandle(), options.stopTimeout());
      log.info("mariadbd pid {} on port {}: {}", process.pid(), options.port(), outcome);
    } finally {
      deleteQuietly(options.initFile()); // still there if the server never became ready
    }
  }

  /** Kills the server at once (SIGKILL), as a crash would; a later start recovers its data. Idempotent. */
  public void kill() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      StopOutcome outcome = ProcessControl.kill(process.toHandle());
      log.info("mariadbd pid {} on port {}: {}", process.pid(), options.port(), outcome);
    } finally {
      deleteQuietly(options.initFile());
    }
  }

  private PointsmanException failure(String message, Throwable cause) {
    PointsmanException e = PointsmanException.unavailable(message + "; last lines of " + options.log() + ":\n"
        + tail(options.log()), cause);
    try {
      close();
    } catch (RuntimeException stopFailure) {
      e.addSuppressed(stopFailure);
    }
    return e;
  }

  private static void installIfNeeded(MariaDbOptions o) throws IOException {
    if (Files.exists(o.installedMarker())) {
      return;
    }
    // A folder without the marker holds a half-finished install: start over.
    Folders.deleteTree(o.dataDir());
    Files.createDirectories(o.tmpDir());
    List<String> command = new ArrayList<>(List.of(
        o.installDbBinary(),
        "--no-defaults",
        "--datadir=" + o.dataDir(),
        "--user=" + o.osUser(),
        "--skip-test-db",
        "--tmpdir=" + o.tmpDir(),
        REDO_LOG_SIZE));
    Process p = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(o.installLog().toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .start();
    try {
      if (!p.waitFor(o.startTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
        ProcessControl.stop(p.toHandle(), Duration.ofSeconds(5));
        throw PointsmanException.failedPrecondition("mariadb-install-db did not finish within " + o.startTimeout()
            + "; see " + o.installLog());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ProcessControl.stop(p.toHandle(), Duration.ofSeconds(5));
      throw PointsmanException.failedPrecondition("interrupted while initialising " + o.dataDir());
    }
    if (p.exitValue() != 0) {
      throw PointsmanException.failedPrecondition("mariadb-install-db failed with status " + p.exitValue()
          + "; errors in " + o.installLog() + ":\n" + errors(o.installLog()));
    }
    Files.writeString(o.installedMarker(), "mariadb-install-db finished\n");
  }

  /**
   * The account is created by an init file that mariadbd runs before it accepts connections, so
   * no root login over TCP is ever needed (root keeps socket-only authentication). Statements are
   * kept out of the binary log: they are not data any stream should replicate. The file is readable
   * by its owner only and removed once the server is ready.
   */
  private static void writeInitFile(MariaDbOptions o) throws IOException {
    String user = "'" + o.credentials().user() + "'@'127.0.0.1'";
    String password = "'" + o.credentials().password().replace("\\", "\\\\").replace("'", "''") + "'";
    String sql = String.join("\n",
        "SET sql_log_bin = 0;",
        "CREATE USER IF NOT EXISTS " + user + " IDENTIFIED BY " + password + ";",
        "ALTER USER " + user + " IDENTIFIED BY " + password + ";",
        "GRANT ALL PRIVILEGES ON *.* TO " + user + " WITH GRANT OPTION;",
        "");
    Path file = o.initFile();
    deleteQuietly(file);
    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, sql, StandardCharsets.UTF_8);
  }

  static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
  }

  /** The error lines of a log (install-db ends its output with pages of advice that hide them). */
  static String errors(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8).stream()
          .filter(l -> l.contains("ERROR") || l.contains("[Warning]"))
          .toList();
      return lines.isEmpty() ? tail(file) : String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES),
          lines.size()));
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      log.warn("cannot delete {}: {}", file, e.toString());
    }
  }
}
