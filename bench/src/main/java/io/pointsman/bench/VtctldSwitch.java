package io.pointsman.bench;

import io.pointsman.api.model.Direction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A write switch as a Vitess operator runs it today: {@code vtctldclient MoveTables SwitchTraffic}
 * (or {@code ReverseTraffic}) {@code --tablet-types PRIMARY}, timed from the command's start to its
 * exit. vtctld reports no steps.
 */
final class VtctldSwitch {
  static final String EXECUTOR = "vtctldclient";

  private final Path vtctldclient;
  private final String server;

  VtctldSwitch(Path vtctldclient, String server) {
    this.vtctldclient = vtctldclient;
    this.server = server;
  }

  SwitchRun switchWrites(String targetKeyspace, String workflow, Direction direction) {
    String action = direction == Direction.FORWARD ? "SwitchTraffic" : "ReverseTraffic";
    List<String> command = List.of(vtctldclient.toString(), "--server", server, "MoveTables", "--workflow", workflow,
        "--target-keyspace", targetKeyspace, action, "--tablet-types", "PRIMARY");
    long start = System.nanoTime();
    long startMillis = System.currentTimeMillis();
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IllegalStateException("vtctldclient " + action + " failed: " + new String(out, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not run " + vtctldclient, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while vtctldclient ran " + action, e);
    }
    return new SwitchRun(EXECUTOR, direction, start, startMillis, System.nanoTime(), List.of(), "");
  }
}
