package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.id;
import static io.pointsman.e2e.E2eChecks.primary;
import static io.pointsman.e2e.E2eChecks.streams;
import static io.pointsman.e2e.E2eChecks.tables;
import static io.pointsman.e2e.E2eChecks.triggers;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.WorkflowFailures.applicationFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection.When;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.SandboxLayout;
import io.pointsman.sandbox.cluster.SandboxShape;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Complete or Cancel that fails after any of its steps took effect is finished by a rerun, and
 * a step held longer than the heartbeat timeout runs once. Each Complete case moves an extra table
 * of its own (Complete drops it from commerce); the Cancel cases create commerce2customer again
 * each time, since Cancel leaves the source as it was.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class CompleteRerunTest {
  private static final String SOURCE = SandboxLayout.COMMERCE;
  private static final String TARGET = SandboxLayout.CUSTOMER;
  private static final String MOVE = SandboxLayout.MOVETABLES_WORKFLOW;
  /** Longer than the steps' 10 s heartbeat timeout, so a step that does not heartbeat is retried meanwhile. */
  private static final Duration HELD = Duration.ofSeconds(16);

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables()
      .shape(SandboxShape.DEFAULT.withExtraTables(4)).faults(faults).resetFaultsAfterEach().build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @ParameterizedTest(name = "Complete failing after {1}")
  @CsvSource({"t0001, dropSources", "t0002, deleteRoutingRules", "t0003, deleteStreams"})
  void aCompleteFailingAfterAStepIsFinishedByARerun(String table, String step) throws Exception {
    String wf = "move_" + table;
    world().createMoveTables(new MoveTablesSpec(wf, SOURCE, TARGET, List.of(table), true));
    switchAll(wf);
    faults.failOnce(step, When.AFTER);

    ApplicationFailure cause = applicationFailure(() -> complete(wf, CompleteRequest.of(wf, TARGET)));
    assertThat(cause.getOriginalMessage()).contains(FaultInjection.message(step, When.AFTER))
        .contains("Rerun CompleteMigration to finish");

    ActionResult rerun = complete(wf, CompleteRequest.of(wf, TARGET));

    assertThat(rerun.summary()).isEqualTo("Successfully completed the " + wf + " workflow in the customer keyspace");
    assertCompleted(wf, table, false);
  }

  @ParameterizedTest(name = "Cancel failing after {0}")
  @ValueSource(strings = {"switchReads", "dropTargets", "deleteRoutingRules", "deleteStreams"})
  void aCancelFailingAfterAStepIsFinishedByARerun(String step) throws Exception {
    world().createMoveTables();
    world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, TARGET, MOVE))
        .switchTraffic(SwitchTrafficRequest.of(MOVE, TARGET).withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY)));
    faults.failOnce(step, When.AFTER);

    ApplicationFailure cause = applicationFailure(() -> cancel());
    assertThat(cause.getOriginalMessage()).contains(FaultInjection.message(step, When.AFTER))
        .contains("Rerun CancelMigration to finish");

    ActionResult rerun = cancel();

    assertThat(rerun.summary()).isEqualTo("Successfully cancelled the " + MOVE + " workflow in the customer keyspace");
    world().assertDefinedState(TARGET, MOVE, "NO_WORKFLOW");
    assertThat(world().store().get(world().store().keys().unfinishedCleanup(TARGET, MOVE))).isEmpty();
    for (String shard : world().store().listShards(TARGET)) {
      assertThat(streams(world(), TARGET, shard, MOVE)).isEmpty();
      assertThat(tables(world(), TARGET, shard)).doesNotContain("customer", "corder");
      assertThat(triggers(world(), TARGET, shard)).isEmpty();
    }
    assertThat(tables(world(), SOURCE, "0")).contains("customer", "corder");
    assertThat(world().services.barrier().deniedTables(primary(world(), SOURCE, "0")))
        .doesNotContain("customer", "corder");
    assertThat(world().store().getRequired(world().store().keys().shard(SOURCE, "0")).value()
        .deniedTables(TabletType.PRIMARY)).isEmpty();
    assertThat(world().store().get(world().store().keys().routingRules())).isEmpty();
  }

  /**
   * The source table's rename waits behind a transaction the test holds open for longer than the
   * heartbeat timeout: the step heartbeats meanwhile, so Temporal never starts a second attempt,
   * whose RENAME would find the table gone.
   */
  @Test
  void aStepHeldLongerThanTheHeartbeatTimeoutRunsOnce() throws Exception {
    String table = "t0004";
    String wf = "move_" + table;
    world().createMoveTables(new MoveTablesSpec(wf, SOURCE, TARGET, List.of(table), true));
    switchAll(wf);
    String db = primary(world(), SOURCE, "0").dbName();

    CompleteMigrationWorkflow complete = world().workflow(CompleteMigrationWorkflow.class,
        id(Pointsman.COMPLETE_MIGRATION, TARGET, wf));
    try (Connection held = world().sandbox.connect(SOURCE, "0"); Statement s = held.createStatement()) {
      held.setAutoCommit(false);
      s.executeQuery("SELECT COUNT(*) FROM `" + db + "`." + table).close(); // a shared metadata lock until commit
      WorkflowClient.start(complete::complete, CompleteRequest.of(wf, TARGET).with(false, false, true, false));
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() -> complete.progress()
          .steps().stream().anyMatch(st -> st.name().equals("dropSources") && st.status() == StepStatus.RUNNING));
      // Deliberately held past the heartbeat timeout: the step blocks on this lock all that time.
      Thread.sleep(HELD.toMillis());
      held.commit();
    }
    ActionResult done = WorkflowStub.fromTyped(complete).getResult(ActionResult.class);

    assertThat(done.summary()).isEqualTo("Successfully completed the " + wf + " workflow in the customer keyspace");
    assertThat(faults.calls()).filteredOn(c -> c.step().equals("dropSources")).as("attempts of dropSources")
        .hasSize(1);
    assertCompleted(wf, table, true);
  }

  private static void assertCompleted(String wf, String table, boolean renamed) throws Exception {
    world().assertDefinedState(TARGET, wf, "NO_WORKFLOW");
    assertThat(world().store().get(world().store().keys().unfinishedCleanup(TARGET, wf))).isEmpty();
    List<String> source = tables(world(), SOURCE, "0");
    assertThat(source).doesNotContain(table);
    if (renamed) {
      assertThat(source).contains("_" + table + "_old");
    }
    assertThat(triggers(world(), SOURCE, "0")).noneMatch(t -> t.contains(table));
    assertThat(world().store().getRequired(world().store().keys().vschema(SOURCE)).value().tables())
        .doesNotContainKey(table);
    assertThat(world().store().getRequired(world().store().keys().shard(SOURCE, "0")).value()
        .deniedTables(TabletType.PRIMARY)).doesNotContain(table);
    assertThat(streams(world(), SOURCE, "0", wf + "_reverse")).isEmpty();
    for (String shard : world().store().listShards(TARGET)) {
      assertThat(streams(world(), TARGET, shard, wf)).isEmpty();
      assertThat(world().store().getRequired(world().store().keys().shard(TARGET, shard)).value()
          .deniedTables(TabletType.PRIMARY)).doesNotContain(table);
    }
    assertThat(world().store().get(world().store().keys().routingRules()).map(v -> v.value().asMap().keySet())
        .orElse(java.util.Set.of())).noneMatch(k -> k.contains(table));
  }

  private static void switchAll(String wf) {
    assertThat(world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, TARGET, wf))
        .switchTraffic(SwitchTrafficRequest.of(wf, TARGET)).currentState())
        .isEqualTo(ALL_SWITCHED);
  }

  private static ActionResult complete(String wf, CompleteRequest request) {
    return world().workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION, TARGET, wf))
        .complete(request);
  }

  private static ActionResult cancel() {
    return world().workflow(CancelMigrationWorkflow.class, id(Pointsman.CANCEL_MIGRATION, TARGET, MOVE))
        .cancel(CancelRequest.of(MOVE, TARGET));
  }

}
