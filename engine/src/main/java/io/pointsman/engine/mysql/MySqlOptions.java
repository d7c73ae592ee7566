package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How the worker connects to shard primaries: credentials, TLS and pool sizing. Comes from the
 * worker's configuration only; workflow inputs never carry any of it, so no secret reaches a
 * workflow history. The password is never printed ({@link #toString()} masks it).
 */
public final class MySqlOptions {
  /** Connector/J's {@code sslMode} values. */
  public enum TlsMode {
    DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY;

    boolean verifiesServer() {
      return this == VERIFY_CA || this == VERIFY_IDENTITY;
    }
  }

  private final String user;
  private final String password;
  private final Path passwordFile;
  private final TlsMode tlsMode;
  private final Path tlsCaFile;
  private final boolean allowPublicKeyRetrieval;
  private final int poolSize;
  private final Duration connectTimeout;
  private final Duration socketTimeout;

  private MySqlOptions(Builder b) {
    this.user = b.user;
    this.password = b.password;
    this.passwordFile = b.passwordFile;
    this.tlsMode = b.tlsMode;
    this.tlsCaFile = b.tlsCaFile;
    this.allowPublicKeyRetrieval = b.allowPublicKeyRetrieval;
    this.poolSize = b.poolSize;
    this.connectTimeout = b.connectTimeout;
    this.socketTimeout = b.socketTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String user() {
    return user;
  }

  /**
   * The password: the configured one, or the password file's content read now (without its
   * trailing newline), so a rotated secret file is picked up by the next pool that is created.
   */
  public String resolvePassword() {
    if (passwordFile == null) {
      return password == null ? "" : password;
    }
    try {
      return Files.readString(passwordFile, StandardCharsets.UTF_8).stripTrailing();
    } catch (IOException e) {
      // The path is configuration, not a secret; the content never appears in a message.
      throw PointsmanException.failedPrecondition("cannot read the MySQL password file " + passwordFile + ": "
          + e.getClass().getSimpleName());
    }
  }

  public TlsMode tlsMode() {
    return tlsMode;
  }

  /** A PEM file with the CA certificate(s) that sign the servers' certificates, for VERIFY_CA/VERIFY_IDENTITY. */
  public Optional<Path> tlsCaFile() {
    return Optional.ofNullable(tlsCaFile);
  }

  /** Whether caching_sha2_password may fetch the server's RSA key over a connection without TLS (MySQL 8). */
  public boolean allowPublicKeyRetrieval() {
    return allowPublicKeyRetrieval;
  }

  /** Connections per MySQL server (host:port). */
  public int poolSize() {
    return poolSize;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  /**
   * How long one network read may block: the bound on a hung server or a half-open connection.
   * It must exceed the longest statement pointsman waits on (a write barrier's drain), so it
   * defaults to ten minutes.
   */
  public Duration socketTimeout() {
    return socketTimeout;
  }

  @Override
  public String toString() {
    return "MySqlOptions{user=" + user + ", password=" + (passwordFile != null ? "file " + passwordFile : "****")
        + ", tlsMode=" + tlsMode + ", tlsCaFile=" + tlsCaFile + ", poolSize=" + poolSize
        + ", connectTimeout=" + connectTimeout + ", socketTimeout=" + socketTimeout + "}";
  }

  /** Builds {@link MySqlOptions}; {@link #build()} validates. */
  public static final class Builder {
    private String user;
    private String password;
    private Path passwordFile;
    private TlsMode tlsMode = TlsMode.PREFERRED;
    private Path tlsCaFile;
    private boolean allowPublicKeyRetrieval;
    private int poolSize = 4;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration socketTimeout = Duration.ofMinutes(10);

    private Builder() {}

    public Builder user(String user) {
      this.user = user;
      return this;
    }

    public Builder password(String password) {
      this.password = password;
      return this;
    }

    public Builder passwordFile(Path passwordFile) {
      this.passwordFile = passwordFile;
      return this;
    }

    public Builder tlsMode(TlsMode tlsMode) {
      this.tlsMode = Objects.requireNonNull(tlsMode, "tlsMode");
      return this;
    }

    public Builder tlsCaFile(Path tlsCaFile) {
      this.tlsCaFile = tlsCaFile;
      return this;
    }

    public Builder allowPublicKeyRetrieval(boolean allow) {
      this.allowPublicKeyRetrieval = allow;
      return this;
    }

    public Builder poolSize(int poolSize) {
      this.poolSize = poolSize;
      return this;
    }

    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
      return this;
    }

    public Builder socketTimeout(Duration socketTimeout) {
      this.socketTimeout = Objects.requireNonNull(socketTimeout, "socketTimeout");
      return this;
    }

    public MySqlOptions build() {
      if (user == null || user.isBlank()) {
        throw PointsmanException.invalidArgument("MySQL user is not configured");
      }
      if (password != null && passwordFile != null) {
        throw PointsmanException.invalidArgument("configure either a MySQL password or a password file, not both");
      }
      if (poolSize < 1 || poolSize > 256) {
        throw PointsmanException.invalidArgument("MySQL pool size must be 1..256, got " + poolSize);
      }
      if (connectTimeout.isNegative() || connectTimeout.isZero()) {
        throw PointsmanException.invalidArgument("MySQL connect timeout must be positive");
      }
      if (socketTimeout.isNegative() || socketTimeout.isZero()) {
        throw PointsmanException.invalidArgument("MySQL socket timeout must be positive");
      }
      if (tlsCaFile != null && !tlsMode.verifiesServer()) {
        throw PointsmanException.invalidArgument(
            "a TLS CA file only takes effect with tlsMode VERIFY_CA or VERIFY_IDENTITY, not " + tlsMode);
      }
      return new MySqlOptions(this);
    }
  }
}
