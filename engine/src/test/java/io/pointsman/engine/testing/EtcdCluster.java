package io.pointsman.engine.testing;

import io.pointsman.engine.net.LoopbackPorts;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A cluster of etcd members of a test's own on loopback, for the scenarios one server cannot
 * play: a client left with a minority of members. Members keep their data across
 * {@link #kill(int)} and {@link #start(int)}.
 */
public final class EtcdCluster implements AutoCloseable {
  private final Path dataDir;
  private final int[] clientPorts;
  private final int[] peerPorts;
  private final Process[] processes;
  private final String initialCluster;
  private final String token = "pointsman-test-" + UUID.randomUUID();

  public EtcdCluster(int members) throws IOException {
    this.dataDir = Files.createTempDirectory("pointsman-etcd-cluster");
    this.clientPorts = new int[members];
    this.peerPorts = new int[members];
    this.processes = new Process[members];
    for (int i = 0; i < members; i++) {
      clientPorts[i] = LoopbackPorts.freePort();
      peerPorts[i] = LoopbackPorts.freePort();
    }
    List<String> peers = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      peers.add(name(i) + "=" + peerUrl(i));
    }
    this.initialCluster = String.join(",", peers);
  }

  /** Starts every member and waits until the cluster has a leader. */
  public EtcdCluster start() throws IOException, InterruptedException {
    for (int i = 0; i < processes.length; i++) {
      launch(i);
    }
    for (int i = 0; i < processes.length; i++) {
      awaitHealthy(i);
    }
    return this;
  }

  public String endpoint(int member) {
    return "http://127.0.0.1:" + clientPorts[member];
  }

  /** Every member's client URL, comma-separated. */
  public String endpoints() {
    return IntStream.range(0, processes.length).mapToObj(this::endpoint).collect(Collectors.joining(","));
  }

  /** SIGKILL, as a crashed or cut-off host, and waits until the member is gone. */
  public synchronized void kill(int member) throws InterruptedException {
    Process p = processes[member];
    if (p != null) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
      processes[member] = null;
    }
  }

  /** Starts a killed member again on its data, and waits until it serves with a leader. */
  public synchronized void start(int member) throws IOException, InterruptedException {
    launch(member);
    awaitHealthy(member);
  }

  private synchronized void launch(int i) throws IOException {
    Path dir = dataDir.resolve(name(i));
    Files.createDirectories(dir);
    processes[i] = new ProcessBuilder(List.of(
            TestServices.etcdBinary(), "--name", name(i), "--data-dir", dir.resolve("data").toString(),
            "--listen-client-urls", endpoint(i), "--advertise-client-urls", endpoint(i),
            "--listen-peer-urls", peerUrl(i), "--initial-advertise-peer-urls", peerUrl(i),
            "--initial-cluster", initialCluster, "--initial-cluster-state", "new",
            "--initial-cluster-token", token))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("etcd.log").toFile()))
        .start();
  }

  /** etcd's /health answers 200 only from a member that has a leader. */
  private void awaitHealthy(int i) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (healthy(i)) {
        return;
      }
      Process p = processes[i];
      if (p == null || !p.isAlive()) {
        throw new IOException("etcd member " + name(i) + " exited: "
            + Files.readString(dataDir.resolve(name(i)).resolve("etcd.log")));
      }
      Thread.sleep(100);
    }
    throw new IOException("etcd member " + name(i) + " did not become healthy on " + endpoint(i));
  }

  private boolean healthy(int i) {
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(endpoint(i) + "/health").toURL().openConnection();
      c.setConnectTimeout(500);
      c.setReadTimeout(2000);
      return c.getResponseCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() throws Exception {
    for (int i = 0; i < processes.length; i++) {
      kill(i);
    }
    TestProcesses.deleteTree(dataDir);
  }

  private static String name(int i) {
    return "m" + i;
  }

  private String peerUrl(int i) {
    return "http://127.0.0.1:" + peerPorts[i];
  }
}
