package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.id;
import static io.pointsman.e2e.E2eChecks.primary;
import static io.pointsman.e2e.E2eChecks.streams;
import static io.pointsman.e2e.E2eChecks.tables;
import static io.pointsman.e2e.E2eChecks.triggers;
import static io.pointsman.e2e.WorkflowFailures.typedFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection.When;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Reshard Cancel that failed once its target tables were dropped is finished by a rerun: the
 * rerun finds no tables left on the target shards and has nothing to drop there, rather than
 * naming the workflow's whole-keyspace filter ({@code /.*}) as a table. Cancel with
 * ignoreSourceKeyspace is refused for a Reshard, fresh or resuming, changing nothing.
 */
@Timeout(600)
class ReshardCancelRerunTest {
  private static final String KS = "customer";
  private static final String WF = "cust2cust";
  private static final String MOVE = "commerce2customer";
  private static final List<String> SOURCES = List.of("-80", "80-");
  private static final List<String> TARGETS = List.of("-40", "40-80", "80-c0", "c0-");

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.reshard().faults(faults).resetFaultsBeforeClose()
      // The Reshard's source shards get their tables from a completed MoveTables, as in ReshardSwitchTest.
      .createMoveTables()
      .then(w -> w.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, MOVE))
          .switchTraffic(SwitchTrafficRequest.of(MOVE, KS)))
      .then(w -> w.workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION, KS, MOVE))
          .complete(CompleteRequest.of(MOVE, KS)))
      .build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @Test
  void aCancelFailingAfterItDroppedTheTargetTablesIsFinishedByARerun() throws Exception {
    world().createReshard();
    // A Reshard's source keyspace is its target: there is no source to ignore, fresh or resumed.
    WorldSnapshot before = WorldSnapshot.take(world());
    ApplicationFailure ignoring = typedFailure(catchThrowableOfType(() -> cancel(CancelRequest.of(WF, KS)
        .ignoringSourceKeyspace()), WorkflowFailedException.class));
    assertThat(ignoring.getType()).isEqualTo("INVALID_ARGUMENT");
    assertThat(ignoring.getOriginalMessage()).startsWith("workflow customer.cust2cust is a Reshard of customer:"
        + " ignoreSourceKeyspace (--ignore-source-keyspace) is for MoveTables").endsWith("Nothing was changed");
    assertThat(WorldSnapshot.take(world()).differencesTo(before)).as("nothing changed").isEmpty();
    faults.failOnce("dropTargets", When.AFTER);

    WorkflowFailedException failed = catchThrowableOfType(() -> cancel(), WorkflowFailedException.class);
    assertThat(failed).as("the first Cancel fails at the injected fault").isNotNull();
    assertThat(((ApplicationFailure) failed.getCause()).getOriginalMessage())
        .contains(FaultInjection.message("dropTargets", When.AFTER));
    for (String shard : TARGETS) {
      assertThat(tables(world(), KS, shard)).as("tables left on target %s", shard).isEmpty();
    }

    ApplicationFailure resumedIgnoring = typedFailure(catchThrowableOfType(() -> cancel(CancelRequest.of(WF, KS)
        .ignoringSourceKeyspace()), WorkflowFailedException.class));
    assertThat(resumedIgnoring.getType()).isEqualTo("INVALID_ARGUMENT");
    assertThat(resumedIgnoring.getOriginalMessage()).startsWith("workflow customer.cust2cust is a Reshard:");
    assertThat(world().store().get(world().store().keys().unfinishedCleanup(KS, WF))).as("the record kept")
        .isPresent();

    ActionResult rerun = cancel();

    assertThat(rerun.summary()).isEqualTo("Successfully cancelled the cust2cust workflow in the customer keyspace");
    world().assertDefinedState(KS, WF, "NO_WORKFLOW");
    for (String shard : TARGETS) {
      assertThat(streams(world(), KS, shard, WF)).isEmpty();
      assertThat(triggers(world(), KS, shard)).isEmpty();
    }
    for (String shard : SOURCES) {
      assertThat(tables(world(), KS, shard)).contains("customer", "corder");
      assertThat(triggers(world(), KS, shard)).isEmpty();
      assertThat(world().services.barrier().deniedTables(primary(world(), KS, shard))).isEmpty();
      assertThat(E2eChecks.primaryServing(world(), KS, shard)).isTrue();
    }
  }

  private static ActionResult cancel() {
    return cancel(CancelRequest.of(WF, KS));
  }

  private static ActionResult cancel(CancelRequest request) {
    return world().workflow(CancelMigrationWorkflow.class, id(Pointsman.CANCEL_MIGRATION, KS, WF)).cancel(request);
  }
}
