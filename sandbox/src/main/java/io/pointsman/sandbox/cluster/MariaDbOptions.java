package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How to run one MariaDB server: its folder (data, socket, logs), loopback port, server id, the
 * account to create and the programs to run. Build with {@link #builder()}; a direct construction
 * is checked the same way, and a binary not given is looked up then.
 *
 * @param folder the instance's own folder, made absolute; created if missing, reused (data included) if present
 * @param serverId the MariaDB server_id; unique per instance so GTIDs tell the servers apart
 * @param osUser the OS account mariadbd runs as; it refuses to run as root unless told {@code --user=root}
 * @param stopTimeout how long a SIGTERM may take before SIGKILL
 */
public record MariaDbOptions(Path folder, int port, long serverId, MysqlCredentials credentials, String mariadbdBinary,
    String installDbBinary, String osUser, Duration startTimeout, Duration stopTimeout) {
  /** Unix socket paths are limited to 108 bytes including the terminating NUL. */
  static final int MAX_SOCKET_PATH = 107;

  public MariaDbOptions {
    if (folder == null) {
      throw PointsmanException.invalidArgument("MariaDB folder is not set");
    }
    folder = folder.toAbsolutePath().normalize();
    Ports.checkPort("MariaDB port", port);
    if (serverId < 1 || serverId > 0xFFFF_FFFFL) {
      throw PointsmanException.invalidArgument("MariaDB server_id " + serverId + " is outside 1..4294967295");
    }
    Objects.requireNonNull(credentials, "credentials");
    Objects.requireNonNull(osUser, "osUser");
    if (startTimeout.isNegative() || startTimeout.isZero() || stopTimeout.isNegative() || stopTimeout.isZero()) {
      throw PointsmanException.invalidArgument("MariaDB start and stop timeouts must be positive");
    }
    mariadbdBinary = mariadbdBinary == null ? Binaries.mariadbd() : mariadbdBinary;
    installDbBinary = installDbBinary == null ? Binaries.mariadbInstallDb() : installDbBinary;
    Path socket = folder.resolve("mysql.sock");
    if (socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH) {
      throw PointsmanException.invalidArgument("MariaDB socket path " + socket + " is longer than "
          + MAX_SOCKET_PATH + " bytes, which Unix sockets do not allow: choose a shorter data folder");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  public Path dataDir() {
    return folder.resolve("data");
  }

  /**
   * The server's own temporary folder: with the shared /tmp, bootstraps running side by side
   * collide on temporary table file names.
   */
  public Path tmpDir() {
    return folder.resolve("tmp");
  }

  public Path socket() {
    return folder.resolve("mysql.sock");
  }

  public Path pidFile() {
    return folder.resolve("mysqld.pid");
  }

  public Path log() {
    return folder.resolve("mysqld.log");
  }

  Path installLog() {
    return folder.resolve("install.log");
  }

  Path installedMarker() {
    return folder.resolve("installed");
  }

  Path initFile() {
    return folder.resolve("init.sql");
  }

  @Override
  public String toString() {
    return "MariaDbOptions{folder=" + folder + ", port=" + port + ", serverId=" + serverId + ", " + credentials + "}";
  }

  /** Builds {@link MariaDbOptions}; {@link #build()} validates. */
  public static final class Builder {
    private Path folder;
    private int port;
    private long serverId = 1;
    private MysqlCredentials credentials = MysqlCredentials.defaults();
    private String mariadbdBinary;
    private String installDbBinary;
    private String osUser = System.getProperty("user.name");
    private Duration startTimeout = Duration.ofSeconds(60);
    private Duration stopTimeout = Duration.ofSeconds(30);

    private Builder() {}

    /** The instance's own folder; created if missing, reused (data included) if present. */
    public Builder folder(Path folder) {
      this.folder = Objects.requireNonNull(folder, "folder");
      return this;
    }

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** The MariaDB server_id; unique per instance so GTIDs tell the servers apart. */
    public Builder serverId(long serverId) {
      this.serverId = serverId;
      return this;
    }

    public Builder credentials(MysqlCredentials credentials) {
      this.credentials = Objects.requireNonNull(credentials, "credentials");
      return this;
    }

    public Builder mariadbdBinary(String path) {
      this.mariadbdBinary = path;
      return this;
    }

    public Builder installDbBinary(String path) {
      this.installDbBinary = path;
      return this;
    }

    public Builder osUser(String osUser) {
      this.osUser = Objects.requireNonNull(osUser, "osUser");
      return this;
    }

    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = Objects.requireNonNull(startTimeout, "startTimeout");
      return this;
    }

    public Builder stopTimeout(Duration stopTimeout) {
      this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
      return this;
    }

    public MariaDbOptions build() {
      return new MariaDbOptions(folder, port, serverId, credentials, mariadbdBinary, installDbBinary, osUser,
          startTimeout, stopTimeout);
    }
  }
}
