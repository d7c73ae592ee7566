package io.pointsman.client;

import com.uber.m3.tally.Scope;
import io.grpc.ClientInterceptor;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.pointsman.api.request.PlainInputConverter;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * One connection to Temporal and a client for one namespace: the bootstrap the worker, dev mode
 * and the CLI share, so TLS, API key and metrics are set up in one place.
 */
public final class TemporalConnection implements AutoCloseable {
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  private final TemporalOptions options;
  private final WorkflowServiceStubs service;
  private final WorkflowClient client;

  private TemporalConnection(TemporalOptions options, WorkflowServiceStubs service) {
    this.options = options;
    this.service = service;
    this.client = WorkflowClient.newInstance(service,
        WorkflowClientOptions.newBuilder().setNamespace(options.namespace())
            .setDataConverter(PlainInputConverter.dataConverter()).build());
  }

  /**
   * A connection that is made on first use and re-made by gRPC whenever it breaks: what a worker
   * wants, which may start before its Temporal is up.
   *
   * @param metricsScope where the SDK reports its metrics; null for none
   */
  public static TemporalConnection lazy(TemporalOptions options, Scope metricsScope) {
    return lazy(options, metricsScope, List.of());
  }

  /**
   * {@link #lazy(TemporalOptions, Scope)} with {@code interceptors} on every call to the server (the
   * worker's watch of eager activities).
   */
  public static TemporalConnection lazy(TemporalOptions options, Scope metricsScope,
      List<ClientInterceptor> interceptors) {
    return new TemporalConnection(options,
        WorkflowServiceStubs.newServiceStubs(stubOptions(options, metricsScope, interceptors)));
  }

  /**
   * A connection whose server answered a health check within {@code timeout}: what the CLI wants,
   * so an unreachable Temporal is one clear message rather than a retry loop.
   *
   * @throws TemporalUnreachableException when the server did not answer in time
   */
  public static TemporalConnection connected(TemporalOptions options, Duration timeout) {
    try {
      return new TemporalConnection(options,
          WorkflowServiceStubs.newConnectedServiceStubs(stubOptions(options, null, List.of()), timeout));
    } catch (StatusRuntimeException e) {
      String tls = tlsProblem(e);
      throw new TemporalUnreachableException("cannot reach Temporal at " + options.address() + " (namespace "
          + options.namespace() + ") within " + timeout.toSeconds() + "s: " + (tls != null ? tls
          : e.getStatus().getCode() + (e.getStatus().getDescription() != null ? " "
              + e.getStatus().getDescription() : "")), e);
    }
  }

  public TemporalOptions options() {
    return options;
  }

  public WorkflowServiceStubs service() {
    return service;
  }

  public WorkflowClient client() {
    return client;
  }

  @Override
  public void close() {
    service.shutdown();
    // awaitTermination restores the interrupt flag itself when interrupted
    if (!service.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
      service.shutdownNow();
    }
  }

  private static WorkflowServiceStubsOptions stubOptions(TemporalOptions o, Scope metricsScope,
      List<ClientInterceptor> interceptors) {
    WorkflowServiceStubsOptions.Builder b = WorkflowServiceStubsOptions.newBuilder().setTarget(o.address())
        .setGrpcClientInterceptors(interceptors);
    if (o.tls()) {
      b.setSslContext(sslContext(o));
    } else {
      // said explicitly: the SDK turns TLS on by itself whenever an API key is added
      b.setEnableHttps(false);
    }
    o.tlsServerName().ifPresent(name -> b.setChannelInitializer(channel -> channel.overrideAuthority(name)));
    o.apiKey().ifPresent(key -> b.addApiKey(() -> key));
    if (metricsScope != null) {
      b.setMetricsScope(metricsScope);
    }
    return b.build();
  }

  private static SslContext sslContext(TemporalOptions o) {
    try {
      SslContextBuilder ssl = GrpcSslContexts.forClient();
      if (o.tlsCertFile().isPresent()) {
        ssl.keyManager(o.tlsCertFile().get().toFile(), o.tlsKeyFile().orElseThrow().toFile());
      }
      o.tlsCaFile().ifPresent(ca -> ssl.trustManager(ca.toFile()));
      return ssl.build();
    } catch (SSLException | IllegalArgumentException e) {
      // the message names files, never their content
      throw new IllegalArgumentException("cannot set up TLS for Temporal: " + Objects.toString(e.getMessage(),
          e.getClass().getSimpleName()), e);
    }
  }

  /**
   * The setting to check when the TLS handshake failed, read from the failure's causes; null when
   * it was not TLS. The server's alert names which side it did not accept.
   */
  static String tlsProblem(Throwable failure) {
    for (Throwable c = failure; c != null; c = c.getCause()) {
      String m = c.getMessage() == null ? "" : c.getMessage();
      // JDK and BoringSSL spell the alerts differently: certificate_required, TLSV1_ALERT_CERTIFICATE_REQUIRED
      String lower = m.toLowerCase(java.util.Locale.ROOT);
      if (!(c instanceof javax.net.ssl.SSLException) && !lower.contains("ssl") && !lower.contains("certificate")) {
        continue;
      }
      if (lower.contains("certificate_required") || lower.contains("certificate required")
          || lower.contains("bad_certificate") || lower.contains("unknown_ca") || lower.contains("certificate_unknown")) {
        return "Temporal refused this client's TLS certificate (check TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY, "
            + "or --tls-cert and --tls-key: a certificate the server's client CA signed): " + deepest(c);
      }
      if (lower.contains("pkix") || lower.contains("certification path") || lower.contains("no subject alternative")
          || lower.contains("no name matching")) {
        return "Temporal's server certificate is not trusted (check TEMPORAL_TLS_CA and TEMPORAL_TLS_SERVER_NAME, "
            + "or --tls-ca and --tls-server-name): " + deepest(c);
      }
    }
    for (Throwable c = failure; c != null; c = c.getCause()) {
      if (c instanceof javax.net.ssl.SSLException) {
        return "the TLS handshake with Temporal failed (TEMPORAL_TLS_*): " + c.getMessage();
      }
    }
    return null;
  }

  /** The innermost cause's message: the TLS library's own words, without the wrappers' class names. */
  private static String deepest(Throwable t) {
    Throwable last = t;
    while (last.getCause() != null && last.getCause() != last) {
      last = last.getCause();
    }
    return String.valueOf(last.getMessage());
  }

  /** Thrown when Temporal did not answer: the CLI prints it as one line. */
  public static final class TemporalUnreachableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TemporalUnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
