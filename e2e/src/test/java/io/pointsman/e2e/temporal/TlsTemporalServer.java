package io.pointsman.e2e.temporal;

import io.pointsman.client.TemporalConnection;
import io.pointsman.client.TemporalOptions;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.testing.TestCertificates;
import io.pointsman.engine.testing.TestServices;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.RegisterNamespaceRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's own server binary (go.temporal.io/server/cmd/server, the version the CLI embeds; built
 * next to the CLI by scripts/temporal.sh) on loopback, in-memory SQLite, with its frontend requiring
 * TLS with a client certificate signed by the test's CA. {@code temporal server start-dev} has no
 * TLS setting, so this is the server the mTLS tests run. Its system worker connects to the frontend
 * with a certificate of that CA too; the {@code default} namespace is registered over mTLS.
 */
final class TlsTemporalServer implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final int frontendPort;

  private TlsTemporalServer(Process process, Path log, int frontendPort) {
    this.process = process;
    this.log = log;
    this.frontendPort = frontendPort;
  }

  /**
   * @param server the frontend's certificate (names 127.0.0.1 and localhost)
   * @param client the certificate the test connects with to register the namespace, also the system worker's
   */
  static TlsTemporalServer start(Path dir, TestCertificates ca, TestCertificates.Issued server,
      TestCertificates.Issued client) throws Exception {
    Files.createDirectories(dir.resolve("config"));
    int[] p = new int[9];
    for (int i = 0; i < p.length; i++) {
      p[i] = LoopbackPorts.freePort();
    }
    String certs = String.join("\n",
        "  tls:",
        "    frontend:",
        "      server:",
        "        certFile: " + server.cert(),
        "        keyFile: " + server.key(),
        "        requireClientAuth: true",
        "        clientCaFiles: [" + ca.caCert() + "]",
        "      client:",
        "        serverName: localhost",
        "        rootCaFiles: [" + ca.caCert() + "]",
        "    systemWorker:",
        "      certFile: " + client.cert(),
        "      keyFile: " + client.key(),
        "      client:",
        "        serverName: localhost",
        "        rootCaFiles: [" + ca.caCert() + "]");
    String sqlite = String.join("\n",
        "      sql:",
        "        pluginName: sqlite",
        "        databaseName: default",
        "        connectAddr: localhost",
        "        connectProtocol: tcp",
        "        connectAttributes: {mode: memory, cache: private}",
        "        maxConns: 1",
        "        maxIdleConns: 1",
        "        maxConnLifetime: 1h");
    String config = String.join("\n",
        "log: {stdout: true, level: warn}",
        "persistence:",
        "  defaultStore: sqlite-default",
        "  visibilityStore: sqlite-visibility",
        "  numHistoryShards: 1",
        "  datastores:",
        "    sqlite-default:",
        sqlite,
        "    sqlite-visibility:",
        sqlite,
        "global:",
        "  membership: {maxJoinDuration: 30s, broadcastAddress: 127.0.0.1}",
        certs,
        "services:",
        service("frontend", p[0], p[1], "      httpPort: " + p[2]),
        service("matching", p[3], p[4], null),
        service("history", p[5], p[6], null),
        service("worker", p[7], p[8], null),
        "clusterMetadata:",
        "  enableGlobalNamespace: false",
        "  failoverVersionIncrement: 10",
        "  masterClusterName: active",
        "  currentClusterName: active",
        "  clusterInformation:",
        "    active: {enabled: true, initialFailoverVersion: 1, rpcName: frontend, rpcAddress: \"127.0.0.1:" + p[0]
            + "\", httpAddress: \"127.0.0.1:" + p[2] + "\"}",
        "dcRedirectionPolicy: {policy: noop}",
        "");
    Files.writeString(dir.resolve("config").resolve("development.yaml"), config);
    Path log = dir.resolve("temporal-server.log");
    Process process = new ProcessBuilder(List.of(binary(), "--root", dir.toString(), "--config", "config",
            "--env", "development", "--allow-no-auth", "start"))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    TlsTemporalServer s = new TlsTemporalServer(process, log, p[0]);
    try {
      s.registerDefaultNamespace(ca, client);
    } catch (Exception | Error e) {
      s.close();
      throw e;
    }
    return s;
  }

  String address() {
    return "127.0.0.1:" + frontendPort;
  }

  /** Registers {@code default} and waits until the frontend describes it: workers poll it right away. */
  private void registerDefaultNamespace(TestCertificates ca, TestCertificates.Issued client) throws Exception {
    TemporalOptions options = TemporalOptions.builder().address(address()).tlsCaFile(ca.caCert())
        .tlsCertFile(client.cert()).tlsKeyFile(client.key()).tlsServerName("localhost").build();
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    boolean registered = false;
    while (true) {
      if (!process.isAlive()) {
        throw new IOException("temporal-server exited: " + Files.readString(log));
      }
      try (TemporalConnection c = TemporalConnection.connected(options, Duration.ofSeconds(3))) {
        var stub = c.service().blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS);
        if (!registered) {
          stub.registerNamespace(RegisterNamespaceRequest.newBuilder().setNamespace("default")
              .setWorkflowExecutionRetentionPeriod(com.google.protobuf.Duration.newBuilder().setSeconds(86400))
              .build());
          registered = true;
        }
        stub.describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace("default").build());
        return;
      } catch (RuntimeException notYet) {
        if (System.nanoTime() > deadline) {
          throw new IOException("temporal-server at " + address() + " did not serve the default namespace: "
              + notYet.getMessage() + "\n" + Files.readString(log), notYet);
        }
        Thread.sleep(500);
      }
    }
  }

  /** POINTSMAN_TEMPORAL_SERVER_BIN, else {@code temporal-server} beside the CLI (POINTSMAN_TEMPORAL_BIN). */
  static String binary() {
    String bin = System.getenv("POINTSMAN_TEMPORAL_SERVER_BIN");
    Path path = bin != null && !bin.isBlank() ? Path.of(bin)
        : Path.of(TestServices.temporalBinary()).resolveSibling("temporal-server");
    if (!Files.isExecutable(path)) {
      throw new IllegalStateException(path + " is not an executable file: ./scripts/temporal.sh build makes it "
          + "beside the Temporal CLI");
    }
    return path.toString();
  }

  private static String service(String name, int grpc, int membership, String extra) {
    return "  " + name + ":\n    rpc:\n      grpcPort: " + grpc + "\n      membershipPort: " + membership
        + "\n      bindOnIP: 127.0.0.1" + (extra == null ? "" : "\n" + extra);
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }
}
