package io.pointsman.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.MigrateWorkflow;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Complete and Cancel of a Migrate workflow finalize it on the target keyspace alone (docs/migrate.md).
 * Mocked activities.
 */
@Timeout(60)
class MigrateFinalizeTest {
  private static final MigrateWorkflow MIGRATE = new MigrateWorkflow("customer", "commerce2customer", "commerce",
      "ext1", List.of("product"), List.of("-80", "80-"));

  @AutoClose
  private final SwitchHarness h = new SwitchHarness();

  @Test
  void completeAddsTheTablesThenDeletesTheStreamsUnderTheTargetKeyspaceLockAlone() {
    h.override("readMigrateWorkflow", inv -> MIGRATE);

    Object result = h.complete(SwitchHarness.completeRequest());

    assertThat(((ActionResult) result).summary())
        .isEqualTo("Successfully completed the commerce2customer workflow in the customer keyspace");
    assertThat(h.steps()).containsExactly("readMigrateWorkflow", "checkMigrateComplete", "acquireLocks",
        "readMigrateWorkflow", "checkMigrateComplete", "addMigratedTables", "deleteMigrateStreams", "releaseLocks");
    LockRequest locks = (LockRequest) h.firstArguments("acquireLocks").get(0);
    assertThat(locks.keyspaces()).as("the source is another cluster's").containsExactly("customer");
    assertThat(h.calls()).doesNotContain("buildTrafficSwitcher", "dropSources", "deleteStreams");
  }

  @Test
  void cancelDropsTheTablesUnlessTheDataIsKept() {
    h.override("readMigrateWorkflow", inv -> MIGRATE);
    h.cancel(SwitchHarness.cancelRequest());
    assertThat(h.steps()).containsExactly("readMigrateWorkflow", "acquireLocks", "readMigrateWorkflow",
        "dropMigratedTables", "deleteMigrateStreams", "releaseLocks");
  }

  @Test
  void aCompleteTheTargetCannotTakeIsRefusedBeforeTheLocks() {
    h.override("readMigrateWorkflow", inv -> MIGRATE);
    h.override("checkMigrateComplete", inv -> {
      throw ApplicationFailure.newNonRetryableFailure("the VSchema lacks [product]", "FAILED_PRECONDITION");
    });

    Object result = h.complete(SwitchHarness.completeRequest());

    assertThat(result).isInstanceOf(WorkflowFailedException.class);
    assertThat(h.steps()).containsExactly("readMigrateWorkflow", "checkMigrateComplete");
  }

  @Test
  void aMigrateEndedByAnotherActionWhileWaitingForTheLocksChangesNothing() {
    java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
    h.override("readMigrateWorkflow", inv -> reads.getAndIncrement() == 0 ? MIGRATE : null);

    Object result = h.complete(SwitchHarness.completeRequest());

    assertThat(result).isInstanceOf(WorkflowFailedException.class);
    assertThat(((WorkflowFailedException) result).getCause()).hasMessageContaining(
        "workflow commerce2customer no longer exists in keyspace customer");
    assertThat(h.steps()).doesNotContain("addMigratedTables", "deleteMigrateStreams").endsWith("releaseLocks");
  }

}
