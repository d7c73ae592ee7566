package io.pointsman.e2e.vitess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The wait around a workflow's create on a cluster just started: vtctld's "vreplication engine is
 * closed" (a primary promoted a moment before) is waited out, anything else is not. A real cluster
 * gives that answer only by a race, so the calls here stand in for vtctldclient.
 */
class EnginesOpenRetryTest {
  private static final String CLOSED = "vtctldclient MoveTables create exited 1: E1206 rpc error: code = Unknown"
      + " desc = failed to create workflow: vreplication engine is closed";

  @Test
  void aClosedEngineIsWaitedOutAndTheCallsResultReturned() {
    AtomicInteger calls = new AtomicInteger();

    String out = VitessCluster.onceEnginesOpen("a create", () -> {
      if (calls.incrementAndGet() < 3) {
        throw new IllegalStateException(CLOSED);
      }
      return "created";
    }, Duration.ofSeconds(10));

    assertThat(out).isEqualTo("created");
    assertThat(calls).hasValue(3);
  }

  @Test
  void anyOtherFailureIsPassedOnAtOnce() {
    AtomicInteger calls = new AtomicInteger();

    assertThatThrownBy(() -> VitessCluster.onceEnginesOpen("a create", () -> {
      calls.incrementAndGet();
      throw new IllegalStateException("vtctldclient MoveTables create exited 1: keyspace commerce not found");
    }, Duration.ofSeconds(10))).isInstanceOf(IllegalStateException.class)
        .hasMessage("vtctldclient MoveTables create exited 1: keyspace commerce not found");
    assertThat(calls).hasValue(1);
  }

  @Test
  void anEngineThatStaysClosedFailsAtTheLimitNamingTheCommand() {
    assertThatThrownBy(() -> VitessCluster.onceEnginesOpen("vtctldclient Reshard create", () -> {
      throw new IllegalStateException(CLOSED);
    }, Duration.ofMillis(600))).isInstanceOf(ConditionTimeoutException.class)
        .hasMessageContaining("vtctldclient Reshard create");
  }
}
