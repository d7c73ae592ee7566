package io.pointsman.engine.etcd;

import io.pointsman.api.errors.PointsmanException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach etcd: endpoints, optional user/password auth and optional TLS. Build it with
 * {@link #builder()}; a direct construction is checked the same way. The password never appears
 * in {@link #toString()}.
 */
public record EtcdOptions(List<String> endpoints, Optional<String> user, Optional<String> password,
    Optional<Path> caFile, Optional<Path> certFile, Optional<Path> keyFile, Duration connectTimeout) {
  public EtcdOptions {
    endpoints = List.copyOf(endpoints);
    if (endpoints.isEmpty() || endpoints.stream().anyMatch(String::isBlank)) {
      throw PointsmanException.invalidArgument("etcd endpoints are empty");
    }
    for (String e : endpoints) {
      if (!e.startsWith("http://") && !e.startsWith("https://")) {
        throw PointsmanException.invalidArgument(
            "etcd endpoint '" + e + "' must start with http:// or https://");
      }
    }
    if (user.isPresent() != password.isPresent()) {
      throw PointsmanException.invalidArgument("etcd user and password must be given together");
    }
    if (certFile.isPresent() != keyFile.isPresent()) {
      throw PointsmanException.invalidArgument("etcd client certificate and key must be given together");
    }
    if (connectTimeout.isNegative() || connectTimeout.isZero()) {
      throw PointsmanException.invalidArgument("etcd connect timeout must be positive");
    }
  }

  public static Builder builder() {
    return new Builder();
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
      return new EtcdOptions(endpoints, Optional.ofNullable(user), Optional.ofNullable(password),
          Optional.ofNullable(caFile), Optional.ofNullable(certFile), Optional.ofNullable(keyFile), connectTimeout);
    }
  }
}
