package io.pointsman.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.primary.PrimaryBackend;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.tablet.TabletTls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The worker's configuration, from environment variables alone. */
class WorkerConfigTest {
  @TempDir
  Path dir;

  private Path file(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  @Test
  void onlyTheMysqlUserIsRequiredEverythingElseHasADefault() {
    WorkerConfig c = WorkerConfig.fromEnv(Map.of("MYSQL_USER", "pointsman"));

    assertThat(c.temporal().address()).isEqualTo("127.0.0.1:7233");
    assertThat(c.temporal().namespace()).isEqualTo("default");
    assertThat(c.temporal().taskQueue()).isEqualTo("pointsman");
    assertThat(c.temporal().tls()).isFalse();
    assertThat(c.temporal().apiKey()).isEmpty();
    assertThat(c.etcd().endpoints()).containsExactly("http://127.0.0.1:2379");
    assertThat(c.etcd().user()).isEmpty();
    assertThat(c.etcd().tls()).isFalse();
    assertThat(c.topoPaths().globalRoot()).isEqualTo("/vitess/global");
    assertThat(c.topoPaths().cellRootPrefix()).isEqualTo("/vitess");
    assertThat(c.mysql().user()).isEqualTo("pointsman");
    assertThat(c.mysql().resolvePassword()).isEmpty();
    assertThat(c.mysql().tlsMode()).isEqualTo(MySqlOptions.TlsMode.PREFERRED);
    assertThat(c.mysql().poolSize()).isEqualTo(4);
    assertThat(c.metricsPort()).isEqualTo(9464);
    assertThat(c.shutdownGrace()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.vtorcAddresses()).isEmpty();
    assertThat(c.tablets()).isEqualTo(TabletRpcOptions.DEFAULTS);
    assertThat(c.tablets().tls().enabled()).isFalse();
    assertThat(c.primaryBackend()).isEqualTo(PrimaryBackend.AUTO);
    assertThat(c.tabletWriteBarrier()).isFalse();
  }

  @Test
  void everyVariableIsRead() throws IOException {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", "temporal.internal:7233");
    env.put("TEMPORAL_NAMESPACE", "ops");
    env.put("POINTSMAN_TASK_QUEUE", "pointsman-eu");
    env.put("TEMPORAL_TLS_CERT", file("client.pem", "cert").toString());
    env.put("TEMPORAL_TLS_KEY", file("client.key", "key").toString());
    env.put("TEMPORAL_TLS_CA", file("ca.pem", "ca").toString());
    env.put("TEMPORAL_TLS_SERVER_NAME", "temporal.example");
    env.put("TEMPORAL_API_KEY_FILE", file("api-key", "key-123\n").toString());
    env.put("ETCD_ENDPOINTS", "https://etcd-1:2379, https://etcd-2:2379");
    env.put("ETCD_USER", "root");
    env.put("ETCD_PASSWORD_FILE", file("etcd-password", "etcd-secret\n").toString());
    env.put("ETCD_CA_FILE", file("etcd-ca.pem", "ca").toString());
    env.put("ETCD_CERT_FILE", file("etcd.pem", "cert").toString());
    env.put("ETCD_KEY_FILE", file("etcd.key", "key").toString());
    env.put("TOPO_GLOBAL_ROOT", "/vt/global");
    env.put("TOPO_CELL_ROOT_PREFIX", "/vt");
    env.put("MYSQL_USER", "vt_pointsman");
    env.put("MYSQL_PASSWORD_FILE", file("mysql-password", "mysql-secret\n").toString());
    env.put("MYSQL_TLS_MODE", "verify_ca");
    env.put("MYSQL_TLS_CA_FILE", file("mysql-ca.pem", "ca").toString());
    env.put("MYSQL_ALLOW_PUBLIC_KEY_RETRIEVAL", "true");
    env.put("MYSQL_POOL_SIZE", "8");
    env.put("METRICS_PORT", "0");
    env.put("WORKER_SHUTDOWN_GRACE", "1m30s");
    env.put("VTORC_ADDRESSES", "vtorc-1:16000, vtorc-2:16000,");
    env.put("VTTABLET_GRPC_CA_FILE", file("tablet-ca.pem", "ca").toString());
    env.put("VTTABLET_GRPC_CERT_FILE", file("tablet-client.pem", "cert").toString());
    env.put("VTTABLET_GRPC_KEY_FILE", file("tablet-client.key", "key").toString());
    env.put("VTTABLET_GRPC_SERVER_NAME", "vttablet.internal");
    env.put("POINTSMAN_PRIMARY_BACKEND", "Tablet");
    env.put("POINTSMAN_TABLET_WRITE_BARRIER", "true");

    WorkerConfig c = WorkerConfig.fromEnv(env);

    assertThat(c.temporal().address()).isEqualTo("temporal.internal:7233");
    assertThat(c.temporal().namespace()).isEqualTo("ops");
    assertThat(c.temporal().taskQueue()).isEqualTo("pointsman-eu");
    assertThat(c.temporal().tls()).isTrue();
    assertThat(c.temporal().tlsCertFile()).contains(dir.resolve("client.pem"));
    assertThat(c.temporal().tlsKeyFile()).contains(dir.resolve("client.key"));
    assertThat(c.temporal().tlsCaFile()).contains(dir.resolve("ca.pem"));
    assertThat(c.temporal().tlsServerName()).contains("temporal.example");
    assertThat(c.temporal().apiKey()).contains("key-123");
    assertThat(c.etcd().endpoints()).containsExactly("https://etcd-1:2379", "https://etcd-2:2379");
    assertThat(c.etcd().user()).contains("root");
    assertThat(c.etcd().password()).contains("etcd-secret");
    assertThat(c.etcd().caFile()).contains(dir.resolve("etcd-ca.pem"));
    assertThat(c.etcd().certFile()).contains(dir.resolve("etcd.pem"));
    assertThat(c.etcd().keyFile()).contains(dir.resolve("etcd.key"));
    assertThat(c.topoPaths().globalRoot()).isEqualTo("/vt/global");
    assertThat(c.topoPaths().cellRoot("zone1")).isEqualTo("/vt/zone1");
    assertThat(c.mysql().user()).isEqualTo("vt_pointsman");
    assertThat(c.mysql().resolvePassword()).isEqualTo("mysql-secret");
    assertThat(c.mysql().tlsMode()).isEqualTo(MySqlOptions.TlsMode.VERIFY_CA);
    assertThat(c.mysql().tlsCaFile()).contains(dir.resolve("mysql-ca.pem"));
    assertThat(c.mysql().allowPublicKeyRetrieval()).isTrue();
    assertThat(c.mysql().poolSize()).isEqualTo(8);
    assertThat(c.metricsPort()).isZero();
    assertThat(c.shutdownGrace()).isEqualTo(Duration.ofSeconds(90));
    assertThat(c.vtorcAddresses()).containsExactly("vtorc-1:16000", "vtorc-2:16000");
    assertThat(c.tablets().tls()).isEqualTo(new TabletTls(Optional.of(dir.resolve("tablet-ca.pem")),
        Optional.of(dir.resolve("tablet-client.pem")), Optional.of(dir.resolve("tablet-client.key")),
        Optional.of("vttablet.internal")));
    assertThat(c.tablets().callTimeout()).isEqualTo(TabletRpcOptions.DEFAULTS.callTimeout());
    assertThat(c.primaryBackend()).isEqualTo(PrimaryBackend.TABLET);
    assertThat(c.tabletWriteBarrier()).isTrue();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "METRICS_PORT|nine|METRICS_PORT must be a port number from 0 to 65535, got 'nine'",
      "METRICS_PORT|70000|METRICS_PORT must be a port number",
      "WORKER_SHUTDOWN_GRACE|soon|WORKER_SHUTDOWN_GRACE must be a positive duration",
      "MYSQL_TLS_MODE|sometimes|MYSQL_TLS_MODE must be one of DISABLED, PREFERRED",
      "MYSQL_POOL_SIZE|0|MYSQL_POOL_SIZE must be a whole number from 1 to 256",
      "MYSQL_ALLOW_PUBLIC_KEY_RETRIEVAL|maybe|MYSQL_ALLOW_PUBLIC_KEY_RETRIEVAL must be true or false",
      "MYSQL_TLS_CA_FILE|/nonexistent/ca.pem|MYSQL_TLS_CA_FILE names /nonexistent/ca.pem, which is not a readable file",
      "TEMPORAL_ADDRESS|temporal|TEMPORAL_*: Temporal address must be host:port, got 'temporal'",
      "TEMPORAL_TLS|sure|TEMPORAL_TLS must be true or false",
      "TEMPORAL_TLS_CERT|/nonexistent/cert.pem|TEMPORAL_TLS_CERT names /nonexistent/cert.pem",
      "ETCD_ENDPOINTS|etcd:2379|ETCD_*: etcd endpoint 'etcd:2379' must start with http:// or https://",
      "ETCD_USER|root|ETCD_*: etcd user and password must be given together",
      "TOPO_GLOBAL_ROOT|vitess/global|TOPO_GLOBAL_ROOT/TOPO_CELL_ROOT_PREFIX: global root 'vitess/global'",
      "VTORC_ADDRESSES|http://vtorc:16000|VTORC_ADDRESSES: 'http://vtorc:16000' is not host:port",
      "VTORC_ADDRESSES|vtorc|VTORC_ADDRESSES: 'vtorc' is not host:port",
      "VTTABLET_GRPC_CA_FILE|/nonexistent/ca.pem|VTTABLET_GRPC_CA_FILE names /nonexistent/ca.pem, which is not a readable file",
      "POINTSMAN_PRIMARY_BACKEND|vtgate|POINTSMAN_PRIMARY_BACKEND must be auto, tablet or direct, got 'vtgate'",
      "POINTSMAN_TABLET_WRITE_BARRIER|sometimes|POINTSMAN_TABLET_WRITE_BARRIER must be true or false"})
  void aBadValueIsAnErrorNamingTheVariable(String name, String value, String message) {
    Map<String, String> env = new HashMap<>(Map.of("MYSQL_USER", "pointsman"));
    env.put(name, value);

    assertThatThrownBy(() -> WorkerConfig.fromEnv(env)).isInstanceOf(ConfigException.class)
        .hasMessageContaining(message);
  }

  @Test
  void aTabletClientCertificateWithoutItsKeyIsAnErrorNamingBoth() throws IOException {
    Map<String, String> env = new HashMap<>(Map.of("MYSQL_USER", "pointsman"));
    env.put("VTTABLET_GRPC_CERT_FILE", file("tablet-client.pem", "cert").toString());

    assertThatThrownBy(() -> WorkerConfig.fromEnv(env)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("VTTABLET_GRPC_CERT_FILE and VTTABLET_GRPC_KEY_FILE; only VTTABLET_GRPC_CERT_FILE is set");
  }

  @Test
  void aMissingMysqlUserIsAnErrorNamingIt() {
    assertThatThrownBy(() -> WorkerConfig.fromEnv(Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("MYSQL_USER is not set");
  }

  @ParameterizedTest
  @CsvSource({"MYSQL_PASSWORD", "ETCD_PASSWORD", "TEMPORAL_API_KEY"})
  void aSecretAndItsFileTogetherAreRefused(String name) throws IOException {
    Map<String, String> env = new HashMap<>(Map.of("MYSQL_USER", "pointsman"));
    if (name.startsWith("ETCD")) {
      env.put("ETCD_USER", "root");
    }
    env.put(name, "s3cret");
    env.put(name + "_FILE", file("secret", "other").toString());

    assertThatThrownBy(() -> WorkerConfig.fromEnv(env)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("set either " + name + " or " + name + "_FILE, not both")
        .hasMessageNotContaining("s3cret").hasMessageNotContaining("other");
  }

  @Test
  void noSecretAppearsInTheConfigurationsText() {
    WorkerConfig c = WorkerConfig.fromEnv(Map.of("MYSQL_USER", "pointsman", "MYSQL_PASSWORD", "mysql-s3cret",
        "ETCD_USER", "root", "ETCD_PASSWORD", "etcd-s3cret", "TEMPORAL_API_KEY", "api-s3cret"));

    assertThat(c.toString()).contains("pointsman").contains("root").contains("apiKey=****")
        .doesNotContain("mysql-s3cret").doesNotContain("etcd-s3cret").doesNotContain("api-s3cret");
  }

  @Test
  void anApiKeyTurnsTlsOnUnlessSwitchedOff() {
    assertThat(WorkerConfig.fromEnv(Map.of("MYSQL_USER", "u", "TEMPORAL_API_KEY", "k")).temporal().tls()).isTrue();
    assertThat(WorkerConfig.fromEnv(Map.of("MYSQL_USER", "u", "TEMPORAL_API_KEY", "k", "TEMPORAL_TLS", "false"))
        .temporal().tls()).isFalse();
  }

  @Test
  void theUsageNamesEveryVariable() {
    String usage = WorkerMain.usage();
    for (String v : WorkerConfig.VARIABLES) {
      assertThat(usage).as(v).contains(v);
    }
  }
}
