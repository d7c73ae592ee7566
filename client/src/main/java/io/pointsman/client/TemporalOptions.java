package io.pointsman.client;

import io.pointsman.api.workflows.Pointsman;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How to reach Temporal: address, namespace, task queue, and optional TLS (client certificate, CA,
 * server name) and API key. Shared by the worker and the CLI. Build it with {@link #builder()}; a
 * direct construction is checked the same way. The API key never appears in {@link #toString()}.
 *
 * @param address {@code host:port} of the Temporal frontend
 * @param tlsCertFile PEM client certificate for mutual TLS
 * @param tlsKeyFile PEM (PKCS#8) key of {@link #tlsCertFile()}
 * @param tlsCaFile PEM CA certificates to trust instead of the JDK's
 * @param tlsServerName the name to check the server certificate against, when it differs from the address's host
 */
public record TemporalOptions(String address, String namespace, String taskQueue, boolean tls,
    Optional<Path> tlsCertFile, Optional<Path> tlsKeyFile, Optional<Path> tlsCaFile, Optional<String> tlsServerName,
    Optional<String> apiKey) {
  public static final String DEFAULT_ADDRESS = "127.0.0.1:7233";
  public static final String DEFAULT_NAMESPACE = "default";

  private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9._-]+):(\\d{1,5})");

  /** @throws IllegalArgumentException naming the setting that is wrong */
  public TemporalOptions {
    if (!HOST_PORT.matcher(address).matches()) {
      throw new IllegalArgumentException("Temporal address must be host:port, got '" + address + "'");
    }
    int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("Temporal address port must be 1..65535, got " + port);
    }
    if (namespace.isEmpty()) {
      throw new IllegalArgumentException("Temporal namespace is empty");
    }
    if (taskQueue.isEmpty()) {
      throw new IllegalArgumentException("Temporal task queue is empty");
    }
    if (tlsCertFile.isPresent() != tlsKeyFile.isPresent()) {
      throw new IllegalArgumentException("the Temporal TLS client certificate and key must be given together");
    }
    if (!tls && (tlsCertFile.isPresent() || tlsCaFile.isPresent())) {
      throw new IllegalArgumentException("Temporal TLS is switched off but TLS files are configured");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String toString() {
    return "TemporalOptions{address=" + address + ", namespace=" + namespace + ", taskQueue=" + taskQueue
        + ", tls=" + tls + tlsCertFile.map(f -> ", clientCert=" + f).orElse("")
        + tlsCaFile.map(f -> ", ca=" + f).orElse("") + tlsServerName.map(n -> ", serverName=" + n).orElse("")
        + ", apiKey=" + (apiKey.isPresent() ? "****" : "none") + "}";
  }

  /** Builds {@link TemporalOptions}; {@link #build()} validates. */
  public static final class Builder {
    private String address = DEFAULT_ADDRESS;
    private String namespace = DEFAULT_NAMESPACE;
    private String taskQueue = Pointsman.TASK_QUEUE;
    private Boolean tls;
    private Path tlsCertFile;
    private Path tlsKeyFile;
    private Path tlsCaFile;
    private String tlsServerName;
    private String apiKey;

    private Builder() {}

    public Builder address(String address) {
      this.address = Objects.requireNonNull(address, "address").trim();
      return this;
    }

    public Builder namespace(String namespace) {
      this.namespace = Objects.requireNonNull(namespace, "namespace").trim();
      return this;
    }

    public Builder taskQueue(String taskQueue) {
      this.taskQueue = Objects.requireNonNull(taskQueue, "taskQueue").trim();
      return this;
    }

    /** Forces TLS on or off; by default it is on when a certificate, a CA or an API key is given. */
    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    public Builder tlsCertFile(Path file) {
      this.tlsCertFile = file;
      return this;
    }

    public Builder tlsKeyFile(Path file) {
      this.tlsKeyFile = file;
      return this;
    }

    public Builder tlsCaFile(Path file) {
      this.tlsCaFile = file;
      return this;
    }

    public Builder tlsServerName(String name) {
      this.tlsServerName = name == null || name.isBlank() ? null : name.trim();
      return this;
    }

    public Builder apiKey(String apiKey) {
      this.apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.strip();
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the setting that is wrong
     */
    public TemporalOptions build() {
      // an API key is a bearer secret: it goes over TLS unless TLS was switched off on purpose
      boolean on = tls != null ? tls : (tlsCertFile != null || tlsCaFile != null || apiKey != null);
      return new TemporalOptions(address, namespace, taskQueue, on, Optional.ofNullable(tlsCertFile),
          Optional.ofNullable(tlsKeyFile), Optional.ofNullable(tlsCaFile), Optional.ofNullable(tlsServerName),
          Optional.ofNullable(apiKey));
    }
  }
}
