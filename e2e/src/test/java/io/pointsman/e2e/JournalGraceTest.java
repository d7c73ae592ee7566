package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Complete's journal grace on the sandbox: a Complete asking for a grace longer than the journal's
 * age is refused with the age, the grace and when it may run, and changes nothing; once the journal
 * is old enough the same Complete goes through.
 */
@Timeout(600)
class JournalGraceTest {
  private static final String WF = "commerce2customer";
  private static final String KS = "customer";

  @Test
  void completeWaitsUntilTheJournalIsAsOldAsTheGrace() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC))
          .switchTraffic(SwitchTrafficRequest.of(WF, KS));
      world.assertDefinedState(KS, WF, "ALL_SWITCHED");

      CompleteRequest tooSoon = CompleteRequest.of(WF, KS).withJournalGrace(Duration.ofHours(1));
      assertThatThrownBy(() -> world.workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION))
          .complete(tooSoon))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(e -> {
            ApplicationFailure failure = (ApplicationFailure) e.getCause();
            assertThat(failure.getType()).isEqualTo("FAILED_PRECONDITION");
            assertThat(failure.getOriginalMessage())
                .contains("cannot complete workflow customer.commerce2customer yet: its journal on commerce/0 is ")
                .contains("--journal-grace (journalGrace) is 1h0m0s")
                .contains("Complete may run from ").contains("Nothing was changed");
          });
      // refused before any change: the switch's state and every artefact are as they were
      world.assertDefinedState(KS, WF, "ALL_SWITCHED");


      CompleteRequest afterGrace = CompleteRequest.of(WF, KS).withJournalGrace(Duration.ofSeconds(1));
      org.awaitility.Awaitility.await("the journal at least 1s old by the primary's clock")
          .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1))
          .until(() -> completes(world, afterGrace));
      world.assertDefinedState(KS, WF, "NO_WORKFLOW");
    }
  }

  private static boolean completes(SwitchWorld world, CompleteRequest request) {
    try {
      ActionResult r = world.workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION))
          .complete(request);
      return r != null;
    } catch (WorkflowFailedException e) {
      String m = ((ApplicationFailure) e.getCause()).getOriginalMessage();
      if (m.contains("Complete may run from")) {
        return false; // seconds-granular clock: the journal was written less than a second ago
      }
      throw e;
    }
  }

  private static String id(String action) {
    return action + "-" + KS + "." + WF + "-" + UUID.randomUUID();
  }
}
