package io.pointsman.workflows;

import static io.pointsman.workflows.SwitchHarness.INFO;
import static io.pointsman.workflows.SwitchHarness.NOTHING_SWITCHED;
import static io.pointsman.workflows.SwitchHarness.READS_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MirrorTraffic against mocked activities: the locks it takes, the refusals made before any change
 * (from the first read, and again under the locks), and what follows a failed mirroring step: the
 * allow_reads reset after a failure, none after the step's own refusal. No etcd, no MySQL.
 */
@Timeout(60)
class TrafficMirrorTest {
  @AutoClose
  private final SwitchHarness h = new SwitchHarness();

  private static MirrorTrafficRequest request() {
    return MirrorTrafficRequest.of(INFO.workflow(), INFO.targetKeyspace());
  }

  @Test
  void itTakesTheWorkflowsNamedLockAndTheTargetKeyspaceOnlyAndMirrorsInOneStep() {
    Object result = h.mirrorTraffic(request().withPercent(5));

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(((ActionResult) result).summary())
        .isEqualTo("MirrorTraffic was successful for workflow customer.commerce2customer");
    LockRequest locks = (LockRequest) h.firstArguments("acquireLocks").get(0);
    assertThat(locks.namedLock()).isEqualTo("customer/commerce2customer");
    assertThat(locks.keyspaces()).containsExactly("customer");
    assertThat(h.invocations("mirrorTableTraffic").findFirst().orElseThrow().get(2)).as("the percent").isEqualTo(5f);
    assertThat(h.calls()).filteredOn(c -> c.startsWith("mirror") || c.startsWith("allow"))
        .containsExactly("mirrorTableTraffic");
  }

  @Test
  void aReshardIsRefusedAtTheFirstReadAndNothingElseRuns() {
    MigrationInfo reshard = new MigrationInfo("cust2cust", "customer", "customer", MigrationType.SHARDS,
        List.of("customer"), List.of("0"), List.of("-80", "80-"), INFO.streams(), 2, false);
    h.override("buildTrafficSwitcher", inv -> reshard);

    ApplicationFailure refused = failure(h.mirrorTraffic(request()));

    assertThat(refused.getType()).isEqualTo("INVALID_ARGUMENT");
    assertThat(refused.getOriginalMessage())
        .isEqualTo("invalid action for Reshard workflow: MirrorTraffic; nothing was changed");
    assertThat(h.calls()).containsExactly("buildTrafficSwitcher");
  }

  /** Another action switched the reads while this one waited for the locks: refused under them, nothing changed. */
  @Test
  void readsSwitchedWhileItWaitedAreRefusedUnderTheLocks() {
    h.states(NOTHING_SWITCHED, READS_SWITCHED);

    ApplicationFailure refused = failure(h.mirrorTraffic(request()));

    assertThat(refused.getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(refused.getOriginalMessage()).isEqualTo("cannot mirror [replica,rdonly] traffic for workflow"
        + " commerce2customer at this time: traffic for those tablet types is switched; nothing was changed");
    assertThat(h.calls()).contains("releaseLocks").doesNotContain("mirrorTableTraffic");
  }

  @Test
  void aFailedMirroringStepIsFollowedByTheAllowReadsResetUnderTheLocks() {
    h.fail("mirrorTableTraffic");

    ApplicationFailure failed = failure(h.mirrorTraffic(request()));

    assertThat(failed.getType()).isEqualTo("INTERNAL");
    assertThat(failed.getOriginalMessage()).contains("injected failure of mirrorTableTraffic")
        .endsWith("Rerun MirrorTraffic to finish: its step converges.");
    assertThat(h.calls()).containsSubsequence("mirrorTableTraffic", "allowTargetReadsWhileMirrored", "releaseLocks");
  }

  /** The step refuses a partial set of rules before it changes anything: there is nothing to reset. */
  @Test
  void theStepsOwnRefusalIsReturnedAsItIsWithNoReset() {
    h.override("mirrorTableTraffic", inv -> {
      throw ApplicationFailure.newNonRetryableFailure("wrong number of pre-existing mirror rules: 2 of the 6",
          "ALREADY_EXISTS");
    });

    ApplicationFailure refused = failure(h.mirrorTraffic(request()));

    assertThat(refused.getType()).isEqualTo("ALREADY_EXISTS");
    assertThat(refused.getOriginalMessage()).isEqualTo("wrong number of pre-existing mirror rules: 2 of the 6");
    assertThat(h.calls()).doesNotContain("allowTargetReadsWhileMirrored").contains("releaseLocks");
  }

  /** The first application failure with a type among the causes of what the run ended with. */
  private static ApplicationFailure failure(Object result) {
    assertThat(result).isInstanceOf(WorkflowFailedException.class);
    for (Throwable t = (Throwable) result; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure af && !af.getType().isEmpty()
          && !af.getType().equals(ApplicationFailure.class.getName())) {
        return af;
      }
    }
    throw new AssertionError("no typed application failure in " + result);
  }
}
