package io.pointsman.engine.testing;

import io.pointsman.engine.net.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * An etcd of a test's own, on free loopback ports, for tests that stop and restart etcd. The data
 * folder survives {@link #stop()} so {@link #start()} brings the same cluster back.
 */
public final class EtcdProcess implements AutoCloseable {
  private final Path dataDir;
  private final int clientPort;
  private final int peerPort;
  private Process process;

  public EtcdProcess() throws IOException {
    this.dataDir = Files.createTempDirectory("pointsman-etcd");
    this.clientPort = LoopbackPorts.freePort();
    this.peerPort = LoopbackPorts.freePort();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + clientPort;
  }

  public synchronized EtcdProcess start() throws IOException, InterruptedException {
    process = TestProcesses.start(TestProcesses.singleEtcd("own", dataDir, endpoint(), peerPort),
        dataDir.resolve("etcd.log"));
    ServerReadiness.await(process, this::healthy, dataDir.resolve("etcd.log"), "etcd on " + endpoint(),
        Duration.ofSeconds(30));
    return this;
  }

  /** Stops etcd the way a crash would (SIGKILL) and waits until it is gone; a paused one too. */
  public synchronized void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
      process = null;
    }
  }

  /** SIGSTOP: etcd freezes with its sockets open, so calls hang instead of failing fast. */
  public synchronized void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  public synchronized void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String name) throws IOException, InterruptedException {
    if (process == null) {
      throw new IllegalStateException("etcd is not running");
    }
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }
  }

  /** Stops etcd gracefully (SIGTERM). */
  public synchronized void stop() throws InterruptedException {
    if (process != null) {
      TestProcesses.stop(process);
      process = null;
    }
  }

  @Override
  public void close() throws Exception {
    kill();
    TestProcesses.deleteTree(dataDir);
  }

  private boolean healthy() {
    return ServerReadiness.answersOk(endpoint() + "/health");
  }
}
