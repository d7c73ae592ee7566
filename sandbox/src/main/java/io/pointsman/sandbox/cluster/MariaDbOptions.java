package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How to run one MariaDB server: its folder (data, socket, logs), loopback port, server id, the
 * account to create and the programs to run. Immutable; build with {@link #builder()}.
 */
public final class MariaDbOptions {
  /** Unix socket paths are limited to 108 bytes including the terminating NUL. */
  static final int MAX_SOCKET_PATH = 107;

  private final Path folder;
  private final int port;
  private final long serverId;
  private final MysqlCredentials credentials;
  private final String mariadbdBinary;
  private final String installDbBinary;
  private final String osUser;
  private final Duration startTimeout;
  private final Duration stopTimeout;

  private MariaDbOptions(Builder b) {
    this.folder = b.folder.toAbsolutePath().normalize();
    this.port = b.port;
    this.serverId = b.serverId;
    this.credentials = b.credentials;
    this.mariadbdBinary = b.mariadbdBinary;
    this.installDbBinary = b.installDbBinary;
    this.osUser = b.osUser;
    this.startTimeout = b.startTimeout;
    this.stopTimeout = b.stopTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Path folder() {
    return folder;
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

  public int port() {
    return port;
  }

  public long serverId() {
    return serverId;
  }

  public MysqlCredentials credentials() {
    return credentials;
  }

  public String mariadbdBinary() {
    return mariadbdBinary;
  }

  public String installDbBinary() {
    return installDbBinary;
  }

  /** The OS account mariadbd runs as; it refuses to run as root unless told {@code --user=root}. */
  public String osUser() {
    return osUser;
  }

  public Duration startTimeout() {
    return startTimeout;
  }

  /** How long a SIGTERM may take before SIGKILL. */
  public Duration stopTimeout() {
    return stopTimeout;
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
      if (folder == null) {
        throw PointsmanException.invalidArgument("MariaDB folder is not set");
      }
      Ports.checkPort("MariaDB port", port);
      if (serverId < 1 || serverId > 0xFFFF_FFFFL) {
        throw PointsmanException.invalidArgument("MariaDB server_id " + serverId + " is outside 1..4294967295");
      }
      if (startTimeout.isNegative() || startTimeout.isZero() || stopTimeout.isNegative() || stopTimeout.isZero()) {
        throw PointsmanException.invalidArgument("MariaDB start and stop timeouts must be positive");
      }
      if (mariadbdBinary == null) {
        mariadbdBinary = Binaries.mariadbd();
      }
      if (installDbBinary == null) {
        installDbBinary = Binaries.mariadbInstallDb();
      }
      MariaDbOptions o = new MariaDbOptions(this);
      if (o.socket().toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH) {
        throw PointsmanException.invalidArgument("MariaDB socket path " + o.socket() + " is longer than "
            + MAX_SOCKET_PATH + " bytes, which Unix sockets do not allow: choose a shorter data folder");
      }
      return o;
    }
  }
}
