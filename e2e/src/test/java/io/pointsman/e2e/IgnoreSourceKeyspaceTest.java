package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.id;
import static io.pointsman.e2e.E2eChecks.rows;
import static io.pointsman.e2e.E2eChecks.streams;
import static io.pointsman.e2e.E2eChecks.tables;
import static io.pointsman.e2e.E2eChecks.triggers;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.WorkflowFailures.typedFailure;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.e2e.FaultInjection.When;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.SandboxShape;
import io.pointsman.sandbox.cluster.ServerStop;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * vtctldclient's {@code --ignore-source-keyspace} (the request's ignoreSourceKeyspace): MoveTables
 * Cancel while the source's primary is down (reads switched, and not sent back), and Complete after
 * the source keyspace was deleted from the topology, each finishing on the target alone: the
 * target's streams, tables (Cancel), denied tables and the routing rules go; the source keyspace is
 * neither locked nor written, in etcd or on its primary. A Complete that failed on its source is
 * finished by a rerun with the flag. Without the flag, Complete of a workflow whose source keyspace
 * is gone is refused before anything changes, naming the flag. (Cancel without it, while the
 * source's primary is down, fails as UNAVAILABLE naming that primary once the reads' retries are
 * spent, about 50 s here: not asserted, for the time.)
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IgnoreSourceKeyspaceTest {
  private static final Logger log = LoggerFactory.getLogger(IgnoreSourceKeyspaceTest.class);
  private static final String KS = "customer";
  private static final String SOURCE = "commerce";
  private static final String WF = "commerce2customer";
  private static final List<String> TARGETS = List.of("-80", "80-");
  private static final List<String> MOVED = List.of("customer", "corder");

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables()
      .shape(SandboxShape.DEFAULT.withExtraTables(1)).faults(faults).resetFaultsAfterEach().build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @Test
  @Order(1)
  void cancelIgnoringASourceWhosePrimaryIsDownCleansTheTargetAndLeavesTheSourceAlone() throws Exception {
    world().createMoveTables();
    // reads switched: a Cancel through the source would send them back first; this one cannot
    List<TabletType> reads = List.of(TabletType.REPLICA, TabletType.RDONLY);
    assertThat(world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF))
        .switchTraffic(SwitchTrafficRequest.of(WF, KS).withTabletTypes(reads)).currentState())
        .isEqualTo(TrafficStates.READS_SWITCHED);
    long sourceShardRevision = sourceShardRevision();
    List<String> sourceTables = tables(world(), SOURCE, "0");
    world().sandbox.stopPrimary(SOURCE, "0", ServerStop.GRACEFUL);
    try {
      CancelMigrationWorkflow dry = world().workflow(CancelMigrationWorkflow.class,
          id(Pointsman.CANCEL_MIGRATION, KS, WF));
      ActionResult plan = dry.cancel(CancelRequest.of(WF, KS).with(false, false, true).ignoringSourceKeyspace());
      log.info("MoveTables Cancel --ignore-source-keyspace dry run:\n{}", String.join("\n", plan.dryRunResults()));
      assertThat(plan.dryRunResults()).startsWith("Lock workflow customer/commerce2customer", "Lock keyspace customer",
              "Source keyspace commerce is ignored: nothing of it is read, locked or changed (its tables, denied tables"
                  + " and reverse streams stay as they are)")
          .contains("Denied tables records on [corder, customer] will be removed from customer [-80, 80-]",
              "Routing rules for participating tables will be deleted")
          .endsWith("Unlock keyspace customer", "Unlock workflow customer/commerce2customer")
          .noneMatch(l -> l.contains("Lock keyspace commerce") || l.startsWith("Switch reads"));
      assertThat(streams(world(), KS, "-80", WF)).as("the dry run changed nothing").isNotEmpty();

      CancelMigrationWorkflow real = world().workflow(CancelMigrationWorkflow.class,
          id(Pointsman.CANCEL_MIGRATION, KS, WF));
      Watched run = watched(() -> real.cancel(CancelRequest.of(WF, KS).ignoringSourceKeyspace()));
      ActionResult cancelled = run.result();
      List<String> seen = run.events();

      assertThat(cancelled.summary())
          .isEqualTo("Successfully cancelled the commerce2customer workflow in the customer keyspace");
      assertThat(seen).as("the target keyspace locked").anyMatch(e -> e.startsWith("PUT ")
          && e.contains("/keyspaces/customer/locks/"));
      assertThat(seen).as("nothing of the source keyspace locked or written")
          .noneMatch(e -> e.contains("/keyspaces/commerce/"));
      assertThat(real.progress().steps()).extracting(step -> step.name()).as("the steps run")
          .contains("dropTargets", "deleteRoutingRules", "deleteWorkflow").doesNotContain("switchReads");
      assertTargetCleaned();
      assertThat(world().store().getRequired(world().store().keys().srvVSchema(E2eChecks.CELL)).value()
          .routingRules().rules()).as("no rule sends reads anywhere").isEmpty();
    } finally {
      world().sandbox.startPrimary(SOURCE, "0");
    }
    assertThat(sourceShardRevision()).as("commerce/0's shard record").isEqualTo(sourceShardRevision);
    assertThat(tables(world(), SOURCE, "0")).isEqualTo(sourceTables).contains("product", "customer", "corder");
    assertThat(rows(world(), SOURCE, "0", "customer")).isEqualTo(5);
    assertThat(triggers(world(), SOURCE, "0")).isEmpty();
  }

  /**
   * A Complete that failed on the source (as when its primary went away) left its record; rerun with
   * ignoreSourceKeyspace, it finishes on the target alone, not again through the source the record
   * names: the source keeps its table, denial and reverse streams. A workflow of its own (t0001).
   */
  @Test
  @Order(2)
  void aCompleteThatFailedOnTheSourceIsFinishedByARerunIgnoringIt() throws Exception {
    String table = "t0001";
    String wf = "move_" + table;
    world().createMoveTables(new MoveTablesSpec(wf, SOURCE, KS, List.of(table), true));
    assertThat(world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, wf))
        .switchTraffic(SwitchTrafficRequest.of(wf, KS)).currentState()).isEqualTo(ALL_SWITCHED);
    faults.failOnce("dropSources", When.BEFORE);
    CompleteMigrationWorkflow first = world().workflow(CompleteMigrationWorkflow.class,
        id(Pointsman.COMPLETE_MIGRATION, KS, wf));

    ApplicationFailure cause = typedFailure(catchThrowableOfType(() -> first.complete(CompleteRequest.of(wf, KS)),
        WorkflowFailedException.class));
    assertThat(cause.getOriginalMessage()).contains(FaultInjection.message("dropSources", When.BEFORE));
    assertThat(world().store().get(world().store().keys().unfinishedCleanup(KS, wf))).as("the record left")
        .isPresent();

    ActionResult rerun = world().workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION, KS, wf))
        .complete(CompleteRequest.of(wf, KS).ignoringSourceKeyspace());

    assertThat(rerun.summary()).isEqualTo("Successfully completed the " + wf + " workflow in the customer keyspace");
    assertThat(world().store().get(world().store().keys().unfinishedCleanup(KS, wf))).isEmpty();
    for (String shard : TARGETS) {
      assertThat(streams(world(), KS, shard, wf)).isEmpty();
      assertThat(world().store().getRequired(world().store().keys().shard(KS, shard)).value()
          .deniedTables(TabletType.PRIMARY)).doesNotContain(table);
    }
    assertThat(world().store().get(world().store().keys().routingRules()).map(v -> v.value().asMap().keySet())
        .orElse(java.util.Set.of())).noneMatch(k -> k.contains(table));
    assertThat(tables(world(), SOURCE, "0")).as("the ignored source's table").contains(table);
    assertThat(streams(world(), SOURCE, "0", wf + "_reverse")).as("the ignored source's reverse streams")
        .isNotEmpty();
    assertThat(world().store().getRequired(world().store().keys().shard(SOURCE, "0")).value()
        .deniedTables(TabletType.PRIMARY)).as("the ignored source's denial").contains(table);
  }

  @Test
  @Order(3)
  void completeIgnoringASourceKeyspaceDeletedFromTheTopologyFinishesOnTheTarget() throws Exception {
    world().createMoveTables();
    SwitchTrafficRequest all = SwitchTrafficRequest.of(WF, KS);
    assertThat(world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF)).switchTraffic(all)
        .currentState()).isEqualTo(ALL_SWITCHED);
    assertThat(streams(world(), SOURCE, "0", WF + "_reverse")).hasSize(2);
    deleteTheSourceKeyspace();

    ApplicationFailure failed = typedFailure(catchThrowableOfType(() -> complete(CompleteRequest.of(WF, KS)),
        WorkflowFailedException.class));
    log.info("Complete without --ignore-source-keyspace: {}", failed.getOriginalMessage());
    assertThat(failed.getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(failed.getOriginalMessage()).isEqualTo("workflow customer.commerce2customer moves tables from keyspace"
        + " commerce, which the topology no longer has; switching traffic needs it. If it was deleted for good,"
        + " Complete or Cancel can still finish the workflow on customer alone with ignoreSourceKeyspace"
        + " (--ignore-source-keyspace). Nothing was changed");
    assertThat(streams(world(), KS, "-80", WF)).as("the failed Complete left the workflow").isNotEmpty();

    Watched run = watched(() -> complete(CompleteRequest.of(WF, KS).ignoringSourceKeyspace()));
    ActionResult done = run.result();
    List<String> seen = run.events();

    assertThat(done.summary())
        .isEqualTo("Successfully completed the commerce2customer workflow in the customer keyspace");
    assertThat(seen).as("nothing of the source keyspace locked or written")
        .noneMatch(e -> e.contains("/keyspaces/commerce/"));
    for (String shard : TARGETS) {
      assertThat(streams(world(), KS, shard, WF)).as("streams on %s", shard).isEmpty();
      assertThat(world().store().getRequired(world().store().keys().shard(KS, shard)).value()
          .deniedTables(TabletType.PRIMARY)).as("denied tables on %s", shard).isEmpty();
      assertThat(tables(world(), KS, shard)).as("the moved tables stay on the target").containsAll(MOVED);
    }
    assertThat(world().store().get(world().store().keys().routingRules())).isEmpty();
    assertThat(world().store().getRequired(world().store().keys().srvVSchema(E2eChecks.CELL)).value().routingRules()
        .rules()).isEmpty();
    assertThat(world().store().get(world().store().keys().unfinishedCleanup(KS, WF))).as("no unfinished record")
        .isEmpty();
    // The source's primary still runs outside the topology; the ignored source kept all it had.
    assertThat(streams(world(), SOURCE, "0", WF + "_reverse")).hasSize(2);
    assertThat(tables(world(), SOURCE, "0")).containsAll(MOVED);
  }

  private static ActionResult complete(CompleteRequest request) {
    return world().workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION, KS, WF))
        .complete(request);
  }

  /** An action's result and every etcd event under the world's roots while it ran. */
  private record Watched(ActionResult result, List<String> events) {}

  private static Watched watched(Callable<ActionResult> action) throws Exception {
    try (DryRunSnapshot.EtcdEvents events = new DryRunSnapshot.EtcdEvents(world(), etcdRevision() + 1)) {
      ActionResult result = action.call();
      return new Watched(result, events.settle(world()));
    }
  }

  /** etcd's revision now; read from etcd alone, as the source's primary may be down. */
  private static long etcdRevision() throws Exception {
    return world().etcd.getKVClient().get(ByteSequence.from(DryRunSnapshot.prefix(world().paths),
        StandardCharsets.UTF_8), GetOption.builder().isPrefix(true).withCountOnly(true).build())
        .get(30, TimeUnit.SECONDS).getHeader().getRevision();
  }

  private static long sourceShardRevision() {
    return world().store().getRequired(world().store().keys().shard(SOURCE, "0")).modRevision();
  }

  /** Streams gone, the copies dropped, and no denied table left on the target. */
  private static void assertTargetCleaned() throws Exception {
    for (String shard : TARGETS) {
      assertThat(streams(world(), KS, shard, WF)).as("streams on %s", shard).isEmpty();
      assertThat(world().store().getRequired(world().store().keys().shard(KS, shard)).value()
          .deniedTables(TabletType.PRIMARY)).as("denied tables on %s", shard).isEmpty();
      assertThat(tables(world(), KS, shard)).as("tables on %s", shard).doesNotContainAnyElementsOf(MOVED);
    }
    assertThat(world().store().get(world().store().keys().routingRules())).isEmpty();
  }

  /**
   * What {@code vtctldclient DeleteKeyspace --recursive commerce} leaves: no keyspace, shard, VSchema,
   * SrvKeyspace or tablet record of commerce (its MariaDB still runs, outside the topology).
   */
  private static void deleteTheSourceKeyspace() throws Exception {
    TabletAlias primary = world().store().getRequired(world().store().keys().shard(SOURCE, "0")).value()
        .primaryAlias();
    delete(world().paths.keyspaceDir(SOURCE) + "/", true);
    delete(world().paths.srvKeyspace(E2eChecks.CELL, SOURCE), false);
    delete(world().paths.tablet(primary), false);
    assertThat(world().store().get(world().store().keys().shard(SOURCE, "0"))).isEmpty();
  }

  private static void delete(String key, boolean prefix) throws Exception {
    ByteSequence k = ByteSequence.from(key, StandardCharsets.UTF_8);
    world().etcd.getKVClient().delete(k, DeleteOption.builder().isPrefix(prefix).build()).get(30, TimeUnit.SECONDS);
  }
}
