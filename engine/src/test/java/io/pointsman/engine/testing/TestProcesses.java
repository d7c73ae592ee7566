package io.pointsman.engine.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Starting and stopping the servers a test runs itself, and removing what they leave. */
final class TestProcesses {
  private TestProcesses() {}

  /**
   * A one-member etcd named {@code name} serving clients on {@code clientUrl} and peers on plain
   * HTTP at {@code peerPort}, its data in {@code dataDir/data}; {@code extra} arguments follow.
   */
  static List<String> singleEtcd(String name, Path dataDir, String clientUrl, int peerPort, String... extra) {
    String peer = "http://127.0.0.1:" + peerPort;
    List<String> command = new ArrayList<>(List.of(
        TestServices.etcdBinary(), "--name", name, "--data-dir", dataDir.resolve("data").toString(),
        "--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl,
        "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
        "--initial-cluster", name + "=" + peer));
    command.addAll(List.of(extra));
    return command;
  }

  /** Runs {@code command} with its output (stderr too) in {@code log}. */
  static Process start(List<String> command, Path log) throws IOException {
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** SIGTERM, and SIGKILL when the process is still there after 30 s. */
  static void stop(Process process) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** Deletes {@code dir} with everything in it. */
  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
