package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How to run the sandbox's own single-member etcd: its folder (data and log), loopback client and
 * peer ports, the program, and start/stop timeouts.
 */
public record EtcdServerOptions(
    Path folder, int clientPort, int peerPort, String binary, Duration startTimeout, Duration stopTimeout) {
  public EtcdServerOptions {
    Objects.requireNonNull(folder, "folder");
    folder = folder.toAbsolutePath().normalize();
    Ports.checkPort("etcd client port", clientPort);
    Ports.checkPort("etcd peer port", peerPort);
    if (clientPort == peerPort) {
      throw PointsmanException.invalidArgument("etcd client and peer ports are both " + clientPort);
    }
    binary = binary == null ? Binaries.etcd() : binary;
    Objects.requireNonNull(startTimeout, "startTimeout");
    Objects.requireNonNull(stopTimeout, "stopTimeout");
  }

  /** Options with the etcd found on this machine and default timeouts (30 s to start, 30 s to stop). */
  public static EtcdServerOptions of(Path folder, int clientPort, int peerPort) {
    return new EtcdServerOptions(folder, clientPort, peerPort, null, Duration.ofSeconds(30), Duration.ofSeconds(30));
  }

  public Path dataDir() {
    return folder.resolve("data");
  }

  public Path log() {
    return folder.resolve("etcd.log");
  }

  public String endpoint() {
    return "http://127.0.0.1:" + clientPort;
  }
}
