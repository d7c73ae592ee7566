package io.pointsman.worker;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.client.TemporalOptions;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.primary.PrimaryBackend;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.tablet.TabletTls;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.vtorc.FailoverToolCheck;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Everything a worker needs, read from environment variables alone (see {@link #fromEnv}). Secrets
 * come from the variables or from files they name, and no {@code toString} here prints one.
 *
 * @param temporal the Temporal frontend, namespace, task queue, TLS and API key
 * @param etcd the topology's etcd: endpoints, auth and TLS
 * @param topoPaths the topology's global root and cell root prefix
 * @param mysql the account and TLS for the shard primaries
 * @param metricsPort the port of the Prometheus endpoint {@code /metrics}; 0 turns it off
 * @param shutdownGrace how long a shutdown waits for running activities before interrupting them
 * @param vtorcAddresses {@code host:port} of each VTOrc's HTTP port, asked before every write window
 *     ({@code VTORC_ADDRESSES}, comma-separated); empty when none
 * @param tablets deadlines and TLS of the tablet-manager gRPC client to real vttablets
 *     ({@code VTTABLET_GRPC_CA_FILE}, {@code VTTABLET_GRPC_CERT_FILE}, {@code VTTABLET_GRPC_KEY_FILE},
 *     {@code VTTABLET_GRPC_SERVER_NAME}: the client side of vttablet's {@code --grpc-cert/--grpc-key/--grpc-ca})
 * @param primaryBackend what serves the shard primaries ({@code POINTSMAN_PRIMARY_BACKEND}: {@code auto},
 *     the default, uses vttablet's RPCs where the primary's Tablet record has a gRPC port and MySQL
 *     directly elsewhere; {@code tablet} or {@code direct} force one)
 * @param tabletWriteBarrier whether pointsman's MySQL write barrier also goes up behind vttablet's
 *     own wall on a real cluster ({@code POINTSMAN_TABLET_WRITE_BARRIER}, off by default; needs an
 *     account that reaches the primaries' MySQL)
 */
public record WorkerConfig(
    TemporalOptions temporal,
    EtcdOptions etcd,
    TopoPaths topoPaths,
    MySqlOptions mysql,
    int metricsPort,
    Duration shutdownGrace,
    List<String> vtorcAddresses,
    TabletRpcOptions tablets,
    PrimaryBackend primaryBackend,
    boolean tabletWriteBarrier) {

  public static final int DEFAULT_METRICS_PORT = 9464;
  public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);

  /** Every variable the worker reads, for documentation and for tests that check none is forgotten. */
  public static final String[] VARIABLES = {
      "TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "POINTSMAN_TASK_QUEUE", "TEMPORAL_TLS", "TEMPORAL_TLS_CERT",
      "TEMPORAL_TLS_KEY", "TEMPORAL_TLS_CA", "TEMPORAL_TLS_SERVER_NAME", "TEMPORAL_API_KEY", "TEMPORAL_API_KEY_FILE",
      "ETCD_ENDPOINTS", "ETCD_USER", "ETCD_PASSWORD", "ETCD_PASSWORD_FILE", "ETCD_CA_FILE", "ETCD_CERT_FILE",
      "ETCD_KEY_FILE", "TOPO_GLOBAL_ROOT", "TOPO_CELL_ROOT_PREFIX", "MYSQL_USER", "MYSQL_PASSWORD",
      "MYSQL_PASSWORD_FILE", "MYSQL_TLS_MODE", "MYSQL_TLS_CA_FILE", "MYSQL_ALLOW_PUBLIC_KEY_RETRIEVAL",
      "MYSQL_POOL_SIZE", "METRICS_PORT", "WORKER_SHUTDOWN_GRACE",
      "VTORC_ADDRESSES", TabletTls.CA_FILE, TabletTls.CERT_FILE, TabletTls.KEY_FILE, TabletTls.SERVER_NAME,
      "POINTSMAN_PRIMARY_BACKEND", "POINTSMAN_TABLET_WRITE_BARRIER"};

  public WorkerConfig {
    Objects.requireNonNull(temporal, "temporal");
    Objects.requireNonNull(etcd, "etcd");
    Objects.requireNonNull(topoPaths, "topoPaths");
    Objects.requireNonNull(mysql, "mysql");
    Objects.requireNonNull(shutdownGrace, "shutdownGrace");
    Objects.requireNonNull(tablets, "tablets");
    Objects.requireNonNull(primaryBackend, "primaryBackend");
    vtorcAddresses = vtorcAddresses == null ? List.of() : List.copyOf(vtorcAddresses);
    if (metricsPort < 0 || metricsPort > 65535) {
      throw new IllegalArgumentException("metrics port must be 0..65535, got " + metricsPort);
    }
  }

  /** Primaries served as their records say ({@link PrimaryBackend#AUTO}). */
  public WorkerConfig(TemporalOptions temporal, EtcdOptions etcd, TopoPaths topoPaths, MySqlOptions mysql,
      int metricsPort, Duration shutdownGrace, List<String> vtorcAddresses, TabletRpcOptions tablets) {
    this(temporal, etcd, topoPaths, mysql, metricsPort, shutdownGrace, vtorcAddresses, tablets, PrimaryBackend.AUTO,
        false);
  }

  /** Plaintext gRPC to tablets with the default deadlines. */
  public WorkerConfig(TemporalOptions temporal, EtcdOptions etcd, TopoPaths topoPaths, MySqlOptions mysql,
      int metricsPort, Duration shutdownGrace, List<String> vtorcAddresses) {
    this(temporal, etcd, topoPaths, mysql, metricsPort, shutdownGrace, vtorcAddresses, TabletRpcOptions.DEFAULTS);
  }

  /** A configuration that asks no VTOrc. */
  public WorkerConfig(TemporalOptions temporal, EtcdOptions etcd, TopoPaths topoPaths, MySqlOptions mysql,
      int metricsPort, Duration shutdownGrace) {
    this(temporal, etcd, topoPaths, mysql, metricsPort, shutdownGrace, List.of());
  }

  /** The configuration from {@link System#getenv()}. */
  public static WorkerConfig fromEnv() {
    return fromEnv(System.getenv());
  }

  /**
   * Reads the configuration; everything but {@code MYSQL_USER} has a default.
   *
   * @throws ConfigException naming the variable that is missing or wrong
   */
  public static WorkerConfig fromEnv(Map<String, String> vars) {
    Env env = new Env(vars);
    return new WorkerConfig(temporal(env), etcd(env), topoPaths(env), mysql(env),
        env.port("METRICS_PORT", DEFAULT_METRICS_PORT),
        env.duration("WORKER_SHUTDOWN_GRACE", DEFAULT_SHUTDOWN_GRACE), vtorcAddresses(env),
        TabletRpcOptions.DEFAULTS.withTls(tabletTls(env)),
        build("POINTSMAN_PRIMARY_BACKEND", () -> PrimaryBackend.parse("POINTSMAN_PRIMARY_BACKEND",
            env.get("POINTSMAN_PRIMARY_BACKEND").orElse(null))),
        env.bool("POINTSMAN_TABLET_WRITE_BARRIER").orElse(false));
  }

  private static TabletTls tabletTls(Env env) {
    return build("VTTABLET_GRPC_*", () -> new TabletTls(env.file(TabletTls.CA_FILE), env.file(TabletTls.CERT_FILE),
        env.file(TabletTls.KEY_FILE), env.get(TabletTls.SERVER_NAME)));
  }

  private static List<String> vtorcAddresses(Env env) {
    return build("VTORC_ADDRESSES", () -> FailoverToolCheck.parseAddresses(env.get("VTORC_ADDRESSES").orElse(null)));
  }

  /** The same configuration against another Temporal (dev mode points it at its own server). */
  public WorkerConfig withTemporal(TemporalOptions other) {
    return new WorkerConfig(other, etcd, topoPaths, mysql, metricsPort, shutdownGrace, vtorcAddresses, tablets,
        primaryBackend, tabletWriteBarrier);
  }

  public WorkerConfig withMetricsPort(int port) {
    return new WorkerConfig(temporal, etcd, topoPaths, mysql, port, shutdownGrace, vtorcAddresses, tablets,
        primaryBackend, tabletWriteBarrier);
  }

  private static TemporalOptions temporal(Env env) {
    return build("TEMPORAL_*", () -> {
      TemporalOptions.Builder b = TemporalOptions.builder()
          .address(env.get("TEMPORAL_ADDRESS", TemporalOptions.DEFAULT_ADDRESS))
          .namespace(env.get("TEMPORAL_NAMESPACE", TemporalOptions.DEFAULT_NAMESPACE))
          .taskQueue(env.get("POINTSMAN_TASK_QUEUE", Pointsman.TASK_QUEUE))
          .tlsCertFile(env.file("TEMPORAL_TLS_CERT").orElse(null))
          .tlsKeyFile(env.file("TEMPORAL_TLS_KEY").orElse(null))
          .tlsCaFile(env.file("TEMPORAL_TLS_CA").orElse(null))
          .tlsServerName(env.get("TEMPORAL_TLS_SERVER_NAME").orElse(null))
          .apiKey(env.secret("TEMPORAL_API_KEY").orElse(null));
      env.bool("TEMPORAL_TLS").ifPresent(b::tls);
      return b.build();
    });
  }

  private static EtcdOptions etcd(Env env) {
    return build("ETCD_*", () -> {
      EtcdOptions.Builder b = EtcdOptions.builder().endpoints(env.get("ETCD_ENDPOINTS", "http://127.0.0.1:2379"));
      env.get("ETCD_USER").ifPresent(b::user);
      env.secret("ETCD_PASSWORD").ifPresent(b::password);
      env.file("ETCD_CA_FILE").ifPresent(b::caFile);
      env.file("ETCD_CERT_FILE").ifPresent(b::certFile);
      env.file("ETCD_KEY_FILE").ifPresent(b::keyFile);
      return b.build();
    });
  }

  private static TopoPaths topoPaths(Env env) {
    return build("TOPO_GLOBAL_ROOT/TOPO_CELL_ROOT_PREFIX", () -> new TopoPaths(
        env.get("TOPO_GLOBAL_ROOT", TopoPaths.DEFAULT_GLOBAL_ROOT),
        env.get("TOPO_CELL_ROOT_PREFIX", TopoPaths.DEFAULT_CELL_ROOT_PREFIX)));
  }

  private static MySqlOptions mysql(Env env) {
    String user = env.required("MYSQL_USER", "the MySQL account pointsman uses on every shard primary");
    return build("MYSQL_*", () -> {
      MySqlOptions.Builder b = MySqlOptions.builder().user(user);
      // the password file is handed over, not read here: MySqlOptions re-reads it for every new pool
      if (env.get("MYSQL_PASSWORD").isPresent() && env.get("MYSQL_PASSWORD_FILE").isPresent()) {
        throw new ConfigException("set either MYSQL_PASSWORD or MYSQL_PASSWORD_FILE, not both");
      }
      env.file("MYSQL_PASSWORD_FILE").ifPresent(b::passwordFile);
      env.get("MYSQL_PASSWORD").ifPresent(b::password);
      env.get("MYSQL_TLS_MODE").ifPresent(m -> b.tlsMode(tlsMode(m)));
      env.file("MYSQL_TLS_CA_FILE").ifPresent(b::tlsCaFile);
      env.bool("MYSQL_ALLOW_PUBLIC_KEY_RETRIEVAL").ifPresent(b::allowPublicKeyRetrieval);
      b.poolSize(env.positiveInt("MYSQL_POOL_SIZE", 4, 256));
      return b.build();
    });
  }

  private static MySqlOptions.TlsMode tlsMode(String value) {
    try {
      return MySqlOptions.TlsMode.valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("MYSQL_TLS_MODE must be one of DISABLED, PREFERRED, REQUIRED, VERIFY_CA, "
          + "VERIFY_IDENTITY, got '" + Env.clip(value) + "'");
    }
  }

  /** Runs a builder, naming the variables it reads when it rejects their combination. */
  private static <T> T build(String variables, Supplier<T> builder) {
    try {
      return builder.get();
    } catch (ConfigException e) {
      throw e;
    } catch (PointsmanException | IllegalArgumentException e) {
      throw new ConfigException(variables + ": " + e.getMessage(), e);
    }
  }
}
