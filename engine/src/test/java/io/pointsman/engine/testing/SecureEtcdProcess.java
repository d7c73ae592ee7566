package io.pointsman.engine.testing;

import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.topo.TopoPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An etcd of a test's own that serves clients over TLS only and requires a client certificate
 * signed by {@code ca} ({@code --client-cert-auth}); its health is read on a separate plain-HTTP
 * metrics port, so waiting for it needs no certificate. {@link #etcdctl} runs etcd's own client
 * against it, to set up users and roles the way an operator would.
 */
public final class SecureEtcdProcess implements AutoCloseable {
  private final Path dataDir;
  private final int clientPort;
  private final int peerPort;
  private final int metricsPort;
  private final TestCertificates ca;
  private final TestCertificates.Issued server;
  private final TestCertificates.Issued admin;
  private Process process;

  /**
   * @param admin the client certificate {@link #etcdctl} presents
   */
  public SecureEtcdProcess(Path dataDir, TestCertificates ca, TestCertificates.Issued server,
      TestCertificates.Issued admin) throws IOException {
    this.dataDir = Files.createDirectories(dataDir);
    this.ca = ca;
    this.server = server;
    this.admin = admin;
    this.clientPort = LoopbackPorts.freePort();
    this.peerPort = LoopbackPorts.freePort();
    this.metricsPort = LoopbackPorts.freePort();
  }

  public String endpoint() {
    return "https://127.0.0.1:" + clientPort;
  }

  public SecureEtcdProcess start() throws IOException, InterruptedException {
    process = TestProcesses.start(TestProcesses.singleEtcd("secure", dataDir, endpoint(), peerPort,
            "--listen-metrics-urls", "http://127.0.0.1:" + metricsPort,
            "--client-cert-auth", "--trusted-ca-file", ca.caCert().toString(),
            "--cert-file", server.cert().toString(), "--key-file", server.key().toString()),
        dataDir.resolve("etcd.log"));
    ServerReadiness.await(process, this::healthy, dataDir.resolve("etcd.log"), "etcd on " + endpoint(),
        Duration.ofSeconds(30));
    return this;
  }

  /** Runs etcdctl with the admin certificate (and {@code --user} when given); fails on a non-zero exit. */
  public String etcdctl(String user, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(etcdctlBinary(), "--endpoints", endpoint(),
        "--cacert", ca.caCert().toString(), "--cert", admin.cert().toString(), "--key", admin.key().toString(),
        "--command-timeout", "10s"));
    if (user != null) {
      command.add("--user");
      command.add(user);
    }
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dataDir, "etcdctl", ".log");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("etcdctl did not finish: " + args[0]);
    }
    String output = Files.readString(out);
    if (p.exitValue() != 0) {
      throw new IOException("etcdctl " + String.join(" ", args) + " failed: " + output);
    }
    return output;
  }

  /**
   * The accounts an operator sets up for pointsman: {@code root}, and a {@code pointsman} user whose
   * role of the same name reads and writes under the two topology roots only (they hold the lock
   * keys too). Authentication stays off until {@link #enableAuth()}, so more users may come first.
   */
  public SecureEtcdProcess addPointsmanAccounts(TopoPaths paths, String rootPassword, String pointsmanPassword)
      throws IOException, InterruptedException {
    etcdctl(null, "user", "add", "root:" + rootPassword);
    addUser("pointsman", pointsmanPassword, "pointsman", "readwrite", paths.globalRoot() + "/",
        paths.cellRootPrefix() + "/");
    return this;
  }

  /** A user whose role {@code role} may only read the global topology: it may look, but take no lock. */
  public SecureEtcdProcess addGlobalReader(String user, String password, String role, TopoPaths paths)
      throws IOException, InterruptedException {
    addUser(user, password, role, "read", paths.globalRoot() + "/");
    return this;
  }

  public SecureEtcdProcess enableAuth() throws IOException, InterruptedException {
    etcdctl(null, "auth", "enable");
    return this;
  }

  private void addUser(String user, String password, String role, String permission, String... prefixes)
      throws IOException, InterruptedException {
    etcdctl(null, "role", "add", role);
    for (String prefix : prefixes) {
      etcdctl(null, "role", "grant-permission", role, "--prefix=true", permission, prefix);
    }
    etcdctl(null, "user", "add", user + ":" + password);
    etcdctl(null, "user", "grant-role", user, role);
  }

  private static String etcdctlBinary() {
    String bin = System.getenv("POINTSMAN_ETCDCTL_BIN");
    return bin == null ? "etcdctl" : bin;
  }

  @Override
  public void close() throws Exception {
    if (process != null) {
      TestProcesses.stop(process);
      process = null;
    }
    TestProcesses.deleteTree(dataDir);
  }

  private boolean healthy() {
    return ServerReadiness.answersOk("http://127.0.0.1:" + metricsPort + "/health");
  }
}
