package io.pointsman.workflows;

import static io.pointsman.workflows.SwitchHarness.ALL_SWITCHED;
import static io.pointsman.workflows.SwitchHarness.INFO;
import static io.pointsman.workflows.SwitchHarness.NOTHING_SWITCHED;
import static io.pointsman.workflows.SwitchHarness.REVERSE_INFO;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.model.ActionResult;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ReverseTraffic against mocked activities: reads go back by the backward read switch of the
 * workflow, writes by a forward write switch of its {@code _reverse} workflow, as in Vitess.
 */
@Timeout(60)
class ReverseTrafficTest {
  /** A fresh harness for each test (JUnit makes one instance of the class per test), closed after it. */
  @AutoClose
  private final SwitchHarness h = new SwitchHarness();

  @Test
  void aReverseSwitchesReadsBackThenWritesThroughTheReverseWorkflow() {
    h.states(ALL_SWITCHED, ALL_SWITCHED, NOTHING_SWITCHED);

    Object result = h.reverseTraffic(SwitchHarness.request());

    assertThat(result).isInstanceOf(ActionResult.class);
    ActionResult r = (ActionResult) result;
    assertThat(r.summary()).isEqualTo("ReverseTraffic was successful for workflow customer.commerce2customer");
    assertThat(r.startState()).isEqualTo(ALL_SWITCHED.summary());
    assertThat(r.currentState()).isEqualTo(NOTHING_SWITCHED.summary());
    assertThat(h.steps()).containsExactly(
        "buildTrafficSwitcher", "getWorkflowState", "buildTrafficSwitcher", "acquireLocks",
        "buildTrafficSwitcher", "getWorkflowState", "canSwitch", "checkReverseReplication",
        "switchReads REPLICA BACKWARD",
        "switchReads RDONLY BACKWARD", "planSequences", "prepareSourceWrites", "readReverseStreams", "acquireLocks",
        "checkFailoverTools", "planPrimaries", "checkJournals", "stopSourceWrites",
        "gatherSourcePositions", "waitForCatchup", "createReverseVReplication", "createJournals",
        "allowTargetWrites", "changeRouting", "startReverseVReplication", "freezeTargetVReplication",
        "releaseLocks", "getWorkflowState");
    assertThat(h.calls()).contains("holdLocks");
    // reads go back on the workflow itself; every write step acts on the reverse workflow
    assertThat(h.firstArguments("switchReads REPLICA BACKWARD")).containsExactly(INFO);
    assertThat(h.firstArguments("canSwitch")).containsExactly(REVERSE_INFO);
    // bound to the primaries planned under the shard locks
    for (String writeStep : List.of("stopSourceWrites", "waitForCatchup", "createJournals",
        "allowTargetWrites", "changeRouting", "freezeTargetVReplication")) {
      assertThat(h.firstArguments(writeStep)).as(writeStep)
          .containsExactly(REVERSE_INFO.withPlannedPrimaries(SwitchHarness.PLANNED_PRIMARIES));
    }
    LockRequest locks = (LockRequest) h.firstArguments("acquireLocks").get(0);
    assertThat(locks.namedLock()).isEqualTo("customer/commerce2customer");
    assertThat(locks.keyspaces()).containsExactly("commerce", "customer");
    assertThat(locks.action()).isEqualTo("ReverseTraffic");
  }
}
