package io.pointsman.sandbox.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.sandbox.cluster.RunningPrimary;
import io.pointsman.sandbox.cluster.ServerProcesses;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The stack owns its folder: what it started stops in reverse, the folder goes last, and a start
 * that fails half-way leaves neither a server nor a folder behind (a leaked world holds about half
 * a gigabyte).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SandboxStackTest {
  private static final Path TMP = Path.of(System.getProperty("java.io.tmpdir"));
  /**
   * Every folder of this test starts with it, so leftovers are found even after the folder is gone;
   * short, as MariaDB's socket path in the folder may not pass 107 bytes.
   */
  private final String prefix = "pm-stack-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  @AfterEach
  void stopLeftovers() {
    ServerProcesses.stopAll(TMP.resolve(prefix));
  }

  @Test
  void closeStopsWhatWasOpenedNewestFirstThenTheSandboxAndDeletesTheFolder() {
    SandboxStack stack = SandboxStack.in(prefix)
        .sandbox(b -> b.basePort(0).etcdPorts(0, 0).withoutReshardTargets())
        .start();
    Path dir = stack.dir();
    List<Integer> ports = new ArrayList<>(stack.sandbox().primaries().stream().map(RunningPrimary::port).toList());
    ports.add(URI.create(stack.sandbox().etcdEndpoint()).getPort());
    assertThat(dir.getFileName().toString()).startsWith(prefix);
    assertThat(ServerProcesses.using(dir)).as("etcd and three primaries").hasSize(4);
    List<String> closed = new ArrayList<>();
    stack.open(() -> closed.add("first; servers up: " + ports.stream().allMatch(LoopbackPorts::isListening)));
    stack.open(() -> closed.add("second"));

    stack.close();

    assertThat(closed).containsExactly("second", "first; servers up: true");
    assertThat(ports).noneMatch(LoopbackPorts::isListening);
    assertThat(ServerProcesses.using(dir)).isEmpty();
    assertThat(dir).doesNotExist();
    stack.close();
    assertThat(closed).as("nothing is closed twice").hasSize(2);
  }

  @Test
  void whatStartsBeforeTheSandboxSetsItUpAndClosesAfterItWithTheFolderStillThere() {
    List<String> closed = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    SandboxStack stack = SandboxStack.in(prefix)
        .sandboxSubfolder("sandbox")
        .before((dir, parts) -> {
          Files.writeString(dir.resolve("prelude.txt"), "started before the sandbox");
          parts.add("the prelude", () -> closed.add("prelude; servers up: " + ports.stream().anyMatch(LoopbackPorts::isListening)
              + "; its file there: " + Files.exists(dir.resolve("prelude.txt"))));
          return b -> b.withoutReshardTargets();
        })
        .sandbox(b -> b.basePort(0).etcdPorts(0, 0))
        .start();
    Path dir = stack.dir();
    ports.addAll(stack.sandbox().primaries().stream().map(RunningPrimary::port).toList());
    assertThat(ServerProcesses.using(dir)).as("etcd and three primaries: the prelude's options applied").hasSize(4);
    assertThat(closed).isEmpty();

    stack.close();

    assertThat(closed).containsExactly("prelude; servers up: false; its file there: true");
    assertThat(dir).doesNotExist();
  }

  @Test
  void aPreludeThatFailsLeavesNoPartAndNoFolder() throws IOException {
    List<String> closed = new ArrayList<>();
    assertThatThrownBy(() -> SandboxStack.in(prefix)
            .before((dir, parts) -> {
              parts.add("the first part", () -> closed.add("first"));
              throw new IOException("the second part could not start");
            })
            .sandbox(b -> b.basePort(0).etcdPorts(0, 0).withoutReshardTargets())
            .start())
        .isInstanceOf(PointsmanException.class)
        .hasMessageContaining("before the sandbox")
        .hasMessageContaining("the second part could not start");
    assertThat(closed).containsExactly("first");
    assertThat(ServerProcesses.using(TMP.resolve(prefix))).isEmpty();
    try (Stream<Path> left = Files.list(TMP)) {
      assertThat(left.filter(p -> p.getFileName().toString().startsWith(prefix))).isEmpty();
    }
  }

  @Test
  void aStartThatFailsHalfWayLeavesNoServerAndNoFolder() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // the second primary's port is taken: etcd and the first primary have started by then
      int basePort = taken.getLocalPort() - 1;
      assertThatThrownBy(() -> SandboxStack.in(prefix)
              .sandbox(b -> b.basePort(basePort).etcdPorts(0, 0).withoutReshardTargets())
              .start())
          .isInstanceOf(PointsmanException.class)
          .hasMessageContaining("is already in use");
    }
    assertThat(ServerProcesses.using(TMP.resolve(prefix))).isEmpty();
    try (Stream<Path> left = Files.list(TMP)) {
      assertThat(left.filter(p -> p.getFileName().toString().startsWith(prefix))).isEmpty();
    }
  }
}
