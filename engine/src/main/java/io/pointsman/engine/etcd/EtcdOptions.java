package io.pointsman.engine.etcd;

import io.pointsman.api.errors.PointsmanException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach etcd: endpoints, optional user/password auth and optional TLS. Immutable; build it
 * with {@link #builder()}. The password never appears in {@link #toString()}.
 */
public final class EtcdOptions {
  private final List<String> endpoints;
  private final Optional<String> user;
  private final Optional<String> password;
  private final Optional<Path> caFile;
  private final Optional<Path> certFile;
  private final Optional<Path> keyFile;
  private final Duration connectTimeout;

  private EtcdOptions(Builder b) {
    this.endpoints = List.copyOf(b.endpoints);
    this.user = Optional.ofNullable(b.user);
    this.password = Optional.ofNullable(b.password);
    this.caFile = Optional.ofNullable(b.caFile);
    this.certFile = Optional.ofNullable(b.certFile);
    this.keyFile = Optional.ofNullable(b.keyFile);
    this.connectTimeout = b.connectTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  public List<String> endpoints() {
    return endpoints;
  }

  public Optional<String> user() {
    return user;
  }

  public Optional<String> password() {
    return password;
  }

  public Optional<Path> caFile() {
    return caFile;
  }

  public Optional<Path> certFile() {
    return certFile;
  }

  public Optional<Path> keyFile() {
    return keyFile;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public boolean tls() {
    return caFile.isPresent() || endpoints.stream().anyMatch(e -> e.startsWith("https://"));
  }

  @Override
  public String toString() {
    return "EtcdOptions{endpoints=" + endpoints + ", user=" + user.orElse("-") + ", tls=" + tls() + "}";
  }

  public static final class Builder {
    private List<String> endpoints = List.of("http://127.0.0.1:2379");
    private String user;
    private String password;
    private Path caFile;
    private Path certFile;
    private Path keyFile;
    private Duration connectTimeout = Duration.ofSeconds(5);

    private Builder() {}

    /** Comma-separated or listed endpoints such as {@code http://127.0.0.1:2379}. */
    public Builder endpoints(List<String> endpoints) {
      this.endpoints = List.copyOf(Objects.requireNonNull(endpoints, "endpoints"));
      return this;
    }

    public Builder endpoints(String commaSeparated) {
      return endpoints(List.of(commaSeparated.trim().split("\\s*,\\s*")));
    }

    public Builder user(String user) {
      this.user = user;
      return this;
    }

    public Builder password(String password) {
      this.password = password;
      return this;
    }

    public Builder caFile(Path caFile) {
      this.caFile = caFile;
      return this;
    }

    public Builder certFile(Path certFile) {
      this.certFile = certFile;
      return this;
    }

    public Builder keyFile(Path keyFile) {
      this.keyFile = keyFile;
      return this;
    }

    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
      return this;
    }

    public EtcdOptions build() {
      if (endpoints.isEmpty() || endpoints.stream().anyMatch(String::isBlank)) {
        throw PointsmanException.invalidArgument("etcd endpoints are empty");
      }
      for (String e : endpoints) {
        if (!e.startsWith("http://") && !e.startsWith("https://")) {
          throw PointsmanException.invalidArgument(
              "etcd endpoint '" + e + "' must start with http:// or https://");
        }
      }
      if ((user == null) != (password == null)) {
        throw PointsmanException.invalidArgument("etcd user and password must be given together");
      }
      if ((certFile == null) != (keyFile == null)) {
        throw PointsmanException.invalidArgument("etcd client certificate and key must be given together");
      }
      if (connectTimeout.isNegative() || connectTimeout.isZero()) {
        throw PointsmanException.invalidArgument("etcd connect timeout must be positive");
      }
      return new EtcdOptions(this);
    }
  }
}
