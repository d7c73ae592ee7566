package io.pointsman.e2e.vitess;

import static io.pointsman.engine.net.LoopbackPorts.freePort;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real vtctld of Vitess 24 on loopback, over the test's etcd and the topology roots the test
 * gives, with {@code vtctldclient} to drive it. Topology commands need no tablets.
 */
public final class Vtctld implements AutoCloseable {
  private final Process process;
  private final Path dir;
  private final String grpcAddress;

  private Vtctld(Process process, Path dir, String grpcAddress) {
    this.process = process;
    this.dir = dir;
    this.grpcAddress = grpcAddress;
  }

  /** Starts vtctld on etcd {@code etcdEndpoint} with the global root {@code globalRoot}; waits until it answers. */
  public static Vtctld start(String etcdEndpoint, String globalRoot) throws IOException {
    Path dir = Files.createTempDirectory("pointsman-vtctld");
    int http = freePort();
    int grpc = freePort();
    while (grpc == http) {
      grpc = freePort();
    }
    List<String> cmd = new ArrayList<>(VitessBinaries.nonRootPrefix());
    cmd.addAll(List.of(VitessBinaries.binary("vtctld").toString(),
        "--topo-implementation", "etcd2",
        "--topo-global-server-address", etcdEndpoint.replaceFirst("^https?://", ""),
        "--topo-global-root", globalRoot,
        "--service-map", "grpc-vtctl,grpc-vtctld",
        "--backup-storage-implementation", "file", "--file-backup-storage-root", dir.resolve("backups").toString(),
        "--log-format", "text",
        "--bind-address", "127.0.0.1", "--port", Integer.toString(http),
        "--grpc-bind-address", "127.0.0.1", "--grpc-port", Integer.toString(grpc)));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("vtctld.log").toFile());
    pb.environment().put("VTDATAROOT", dir.toString());
    Vtctld vtctld = new Vtctld(pb.start(), dir, "127.0.0.1:" + grpc);
    try {
      await("vtctld answering on " + vtctld.grpcAddress).atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(300))
          .until(() -> {
            if (!vtctld.process.isAlive()) {
              throw new IllegalStateException("vtctld exited: " + vtctld.log());
            }
            return vtctld.tryClient("GetCellInfoNames").exitCode() == 0;
          });
    } catch (RuntimeException e) {
      vtctld.close();
      throw e;
    }
    return vtctld;
  }

  public String grpcAddress() {
    return grpcAddress;
  }

  /** The process of vtctld itself (the user-namespace wrapper execs it). */
  public long pid() {
    return process.pid();
  }

  /** Runs vtctldclient against this vtctld; fails with its output when it exits non-zero. */
  public String client(String... args) {
    Result r = tryClient(args);
    if (r.exitCode() != 0) {
      throw new IllegalStateException("vtctldclient " + String.join(" ", args) + " exited " + r.exitCode() + ": "
          + r.output());
    }
    return r.output();
  }

  /** Runs vtctldclient against this vtctld and returns its exit code and output (stdout and stderr). */
  public Result tryClient(String... args) {
    List<String> cmd = new ArrayList<>(List.of(VitessBinaries.binary("vtctldclient").toString(),
        "--server", grpcAddress));
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException("vtctldclient " + String.join(" ", args) + " did not end in 2 minutes");
      }
      return new Result(p.exitValue(), out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Starts vtctldclient without waiting for it, for commands that must wait on a lock. */
  public Process startClient(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(VitessBinaries.binary("vtctldclient").toString(),
        "--server", grpcAddress));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    return p;
  }

  public String log() {
    return ChildServers.log(dir.resolve("vtctld.log"));
  }

  @Override
  public void close() {
    ChildServers.stop(process, Duration.ofSeconds(10));
    ChildServers.deleteFolder(dir);
  }

  /** What one vtctldclient call printed and how it ended. */
  public record Result(int exitCode, String output) {}
}
