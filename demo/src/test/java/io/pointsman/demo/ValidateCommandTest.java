package io.pointsman.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.sandbox.stack.OpenedParts;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code pointsman Validate} end to end: the CLI starts ValidateTopology on dev-mode Temporal, the
 * worker reads the sandbox's etcd and primaries, and the CLI prints what it found and exits 0 or 1.
 */
@Timeout(300)
class ValidateCommandTest {
  private static OpenedParts teardown;
  private static Playground world;

  @BeforeAll
  static void up() throws Exception {
    teardown = new OpenedParts();
    world = Playground.start(teardown, new Narrator(System.out), LoopbackPorts.freePort());
  }

  @AfterAll
  static void down() {
    if (teardown != null) {
      teardown.closeAll("the playground");
    }
  }

  private static Run validate(String... more) {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    List<String> args = new java.util.ArrayList<>(List.of("Validate"));
    args.addAll(List.of(more));
    int code = new InProcessCli(world.dev.address(), out).run(args).exitCode();
    return new Run(code, printed.toString(StandardCharsets.UTF_8));
  }

  private record Run(int exitCode, String output) {}

  @Test
  void aCopiedWorkflowHoldsItsInvariantsAndAnOrphanLockKeyIsNamed() throws Exception {
    Run ok = validate("--workflow", Playground.WORKFLOW, "--target-keyspace", Playground.TARGET_KEYSPACE);
    assertThat(ok.exitCode()).as(ok.output()).isZero();
    assertThat(ok.output()).contains("customer.commerce2customer: NOT_SWITCHED").contains("no broken invariant");

    // a lock key left without a lease, as a crashed holder of a lease-less lock would leave it
    TopoPaths paths = world.sandbox.options().topoPaths();
    ByteSequence key = ByteSequence.from(TopoPaths.locksPrefix(paths.namedLockDir(
        Pointsman.namedLock(Playground.TARGET_KEYSPACE, Playground.WORKFLOW))) + "7587001", StandardCharsets.UTF_8);
    var kv = world.sandbox.etcdClient().getKVClient();
    kv.put(key, ByteSequence.from("{}", StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
    try {
      Run broken = validate("-w", Playground.WORKFLOW, "--target-keyspace", Playground.TARGET_KEYSPACE);
      assertThat(broken.exitCode()).as(broken.output()).isEqualTo(1);
      assertThat(broken.output()).contains("VIOLATION LOCK_KEY_WITHOUT_LEASE").contains("1 broken invariant");
    } finally {
      kv.delete(key).get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBadNameIsRefusedBeforeAnythingStarts() {
    Run bad = validate("--workflow", "commerce`2customer", "--target-keyspace", Playground.TARGET_KEYSPACE);

    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.output()).contains("workflow").contains("Nothing was started");
  }

  @Test
  void aMissingFlagIsAUsageError() {
    Run missing = validate("--workflow", Playground.WORKFLOW);

    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.output()).contains("--target-keyspace");
  }
}
