package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.id;
import static io.pointsman.e2e.E2eChecks.rows;
import static io.pointsman.e2e.E2eChecks.streams;
import static io.pointsman.e2e.E2eChecks.tables;
import static io.pointsman.e2e.E2eChecks.triggers;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.READS_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.topo.model.RoutingRules;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MoveTables Cancel (before any switch, after a reads-only switch, with and without keepData and
 * keepRoutingRules) and Complete with keepData, on one MoveTables sandbox: each test creates
 * commerce2customer afresh from what the previous one left.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MoveTablesCancelCompleteTest {
  private static final Logger log = LoggerFactory.getLogger(MoveTablesCancelCompleteTest.class);
  private static final String KS = "customer";
  private static final String WF = "commerce2customer";
  private static final List<String> TARGETS = List.of("-80", "80-");
  private static final List<String> MOVED = List.of("customer", "corder");
  private static final SwitchTrafficRequest ALL = SwitchTrafficRequest.of(WF, KS);
  private static final SwitchTrafficRequest READS = ALL.withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY));

  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @Test
  @Order(1)
  void cancelBeforeAnySwitchDropsTheCopiesTheirDenialsAndTheirRules() throws Exception {
    world().createMoveTables();

    SwitchTrafficWorkflow dry = world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF));
    ActionResult plan = DryRunSnapshot.assertChangesNothing(world(), () -> dry.switchTraffic(ALL.withDryRun(true)));
    log.info("MoveTables SwitchTraffic dry run:\n{}", String.join("\n", plan.dryRunResults()));
    assertThat(plan.dryRunResults()).startsWith("Lock workflow customer/commerce2customer", "Lock keyspace commerce",
            "Lock keyspace customer")
        .contains("Switch reads for tables [corder, customer] to keyspace customer for tablet types [REPLICA]",
            "Routing rules for tables [corder, customer] will be updated",
            "Create reverse vreplication workflow commerce2customer_reverse",
            "Enable writes on keyspace customer for tables [corder, customer]",
            "Switch routing from keyspace commerce to keyspace customer")
        .endsWith("Unlock keyspace customer", "Unlock keyspace commerce", "Unlock workflow customer/commerce2customer");
    assertThat(plan.dryRunResults()).anySatisfy(line -> assertThat(line).matches(
        "Stop writes on keyspace commerce for tables \\[corder, customer\\]: \\[keyspace:commerce;shard:0;"
            + "position:MariaDB/\\d+-\\d+-\\d+.*\\]"));
    assertThat(dry.progress().plan()).isEqualTo(plan.dryRunResults());

    CancelMigrationWorkflow dryCancel = world().workflow(CancelMigrationWorkflow.class,
        id(Pointsman.CANCEL_MIGRATION, KS, WF));
    ActionResult cancelPlan = DryRunSnapshot.assertChangesNothing(world(),
        () -> dryCancel.cancel(CancelRequest.of(WF, KS).with(false, false, true)));
    log.info("MoveTables Cancel dry run:\n{}", String.join("\n", cancelPlan.dryRunResults()));
    assertThat(cancelPlan.dryRunResults()).contains("Lock workflow customer/commerce2customer",
        "Routing rules for participating tables will be deleted", "Unlock workflow customer/commerce2customer");
    assertThat(cancelPlan.dryRunResults()).noneMatch(l -> l.startsWith("Switch reads"));
    assertThat(dryCancel.progress().plan()).isEqualTo(cancelPlan.dryRunResults());

    ActionResult cancelled;
    List<String> seen;
    long from = DryRunSnapshot.take(world()).revision() + 1;
    try (DryRunSnapshot.EtcdEvents events = new DryRunSnapshot.EtcdEvents(world(), from)) {
      cancelled = cancel(CancelRequest.of(WF, KS));
      seen = events.settle(world());
    }

    // The watch that sees nothing during a dry run sees the real one lock and unlock.
    assertThat(seen).anyMatch(e -> e.startsWith("PUT ") && e.contains("/locks/"))
        .anyMatch(e -> e.startsWith("DELETE ") && e.contains("/locks/"));
    assertThat(cancelled.summary())
        .isEqualTo("Successfully cancelled the commerce2customer workflow in the customer keyspace");
    assertTargetsCleaned(true);
    assertThat(world().store().get(world().store().keys().routingRules())).isEmpty();
    assertSourceUntouched();
  }

  @Test
  @Order(2)
  void cancelAfterAReadsOnlySwitchSendsReadsBackAndDropsEverything() throws Exception {
    world().createMoveTables();
    ActionResult reads = switchTraffic(READS);
    assertThat(reads.currentState()).isEqualTo(READS_SWITCHED);
    Map<String, List<String>> rules = routingRules();
    assertThat(rules.get("customer@replica")).containsExactly("customer.customer");
    assertThat(rules.get("commerce.corder@rdonly")).containsExactly("customer.corder");
    assertThat(rules.get("customer")).containsExactly("commerce.customer");

    ReverseTrafficWorkflow dryBack = world().workflow(ReverseTrafficWorkflow.class,
        id(Pointsman.REVERSE_TRAFFIC, KS, WF));
    ActionResult back = DryRunSnapshot.assertChangesNothing(world(),
        () -> dryBack.reverseTraffic(ALL.withDryRun(true)));
    log.info("MoveTables ReverseTraffic dry run (reads switched):\n{}", String.join("\n", back.dryRunResults()));
    assertThat(back.dryRunResults()).contains(
        "Switch reads for tables [corder, customer] to keyspace commerce for tablet types [REPLICA]",
        "Switch reads for tables [corder, customer] to keyspace commerce for tablet types [RDONLY]");
    assertThat(back.dryRunResults()).anySatisfy(l -> assertThat(l).startsWith("Writes are already switched"));
    assertThat(dryBack.progress().plan()).isEqualTo(back.dryRunResults());

    ActionResult cancelled = cancel(CancelRequest.of(WF, KS));

    assertThat(cancelled.summary())
        .isEqualTo("Successfully cancelled the commerce2customer workflow in the customer keyspace");
    assertTargetsCleaned(true);
    assertThat(world().store().get(world().store().keys().routingRules())).isEmpty();
    assertThat(world().store().getRequired(world().store().keys().srvVSchema(E2eChecks.CELL)).value().routingRules()
        .rules()).isEmpty();
    assertSourceUntouched();
  }

  @Test
  @Order(3)
  void cancelWithKeepDataAndKeepRoutingRulesKeepsTheCopiesAndTheRulesToTheSource() throws Exception {
    world().createMoveTables();
    assertThat(switchTraffic(READS).currentState()).isEqualTo(READS_SWITCHED);

    ActionResult cancelled = cancel(CancelRequest.of(WF, KS).with(true, true, false));

    assertThat(cancelled.summary())
        .isEqualTo("Successfully cancelled the commerce2customer workflow in the customer keyspace");
    assertTargetsCleaned(false);
    long copied = 0;
    for (String shard : TARGETS) {
      assertThat(tables(world(), KS, shard)).containsExactlyInAnyOrderElementsOf(MOVED);
      copied += rows(world(), KS, shard, "customer");
    }
    assertThat(copied).isEqualTo(5);
    Map<String, List<String>> rules = routingRules();
    for (String t : MOVED) {
      for (String suffix : List.of("", "@replica", "@rdonly")) {
        assertThat(rules.get(t + suffix)).as("rule %s", t + suffix).containsExactly("commerce." + t);
        assertThat(rules.get("customer." + t + suffix)).containsExactly("commerce." + t);
      }
    }
    assertThat(world().store().getRequired(world().store().keys().srvVSchema(E2eChecks.CELL)).value().routingRules()
        .asMap()).isEqualTo(rules);
    assertSourceUntouched();

    // Leave empty targets behind, as MoveTables create requires of the next test.
    for (String shard : TARGETS) {
      try (Connection c = world().sandbox.connect(KS, shard); Statement s = c.createStatement()) {
        for (String t : MOVED) {
          s.execute("DELETE FROM `" + E2eChecks.primary(world(), KS, shard).dbName() + "`." + t);
        }
      }
    }
  }

  @Test
  @Order(4)
  void completeWithKeepDataKeepsTheSourceTablesBehindTheirDenials() throws Exception {
    world().createMoveTables();
    assertThat(switchTraffic(ALL).currentState()).isEqualTo(ALL_SWITCHED);

    CompleteMigrationWorkflow dry = world().workflow(CompleteMigrationWorkflow.class,
        id(Pointsman.COMPLETE_MIGRATION, KS, WF));
    ActionResult plan = DryRunSnapshot.assertChangesNothing(world(),
        () -> dry.complete(CompleteRequest.of(WF, KS).with(true, false, false, true)));
    log.info("MoveTables Complete --keep-data dry run:\n{}", String.join("\n", plan.dryRunResults()));
    assertThat(plan.dryRunResults()).contains("Routing rules for participating tables will be deleted")
        .noneMatch(l -> l.startsWith("Dropping") || l.startsWith("Renaming"));
    assertThat(dry.progress().plan()).isEqualTo(plan.dryRunResults());

    ActionResult done = world().workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION, KS, WF))
        .complete(CompleteRequest.of(WF, KS).with(true, false, false, false));

    assertThat(done.summary())
        .isEqualTo("Successfully completed the commerce2customer workflow in the customer keyspace");
    assertThat(tables(world(), "commerce", "0")).containsExactlyInAnyOrder("product", "customer", "corder");
    assertThat(rows(world(), "commerce", "0", "customer")).isEqualTo(5);
    // Vitess keeps the source's denied tables with --keep-data, so writes to the old copies stay blocked.
    assertThat(world().store().getRequired(world().store().keys().shard("commerce", "0")).value()
        .deniedTables(TabletType.PRIMARY)).containsExactlyInAnyOrderElementsOf(MOVED);
    assertThat(world().services.barrier().deniedTables(E2eChecks.primary(world(), "commerce", "0")))
        .containsExactlyInAnyOrderElementsOf(MOVED);
    assertThat(world().store().get(world().store().keys().routingRules())).isEmpty();
    assertThat(streams(world(), "commerce", "0", WF + "_reverse")).isEmpty();
    for (String shard : TARGETS) {
      assertThat(streams(world(), KS, shard, WF)).isEmpty();
      assertThat(world().store().getRequired(world().store().keys().shard(KS, shard)).value()
          .deniedTables(TabletType.PRIMARY)).isEmpty();
    }
  }

  private static ActionResult switchTraffic(SwitchTrafficRequest request) {
    return world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF)).switchTraffic(request);
  }

  private static ActionResult cancel(CancelRequest request) {
    return world().workflow(CancelMigrationWorkflow.class, id(Pointsman.CANCEL_MIGRATION, KS, WF)).cancel(request);
  }

  private static Map<String, List<String>> routingRules() {
    return world().store().get(world().store().keys().routingRules()).map(v -> v.value().asMap())
        .orElse(RoutingRules.EMPTY.asMap());
  }

  /** Streams gone, denials gone from the targets, and (unless kept) the copied tables dropped. */
  private static void assertTargetsCleaned(boolean dropped) throws Exception {
    assertThat(streams(world(), "commerce", "0", WF + "_reverse")).isEmpty();
    for (String shard : TARGETS) {
      assertThat(streams(world(), KS, shard, WF)).as("streams on %s", shard).isEmpty();
      assertThat(world().store().getRequired(world().store().keys().shard(KS, shard)).value()
          .deniedTables(TabletType.PRIMARY)).as("denied tables on %s", shard).isEmpty();
      assertThat(world().services.barrier().deniedTables(E2eChecks.primary(world(), KS, shard))).isEmpty();
      if (dropped) {
        assertThat(tables(world(), KS, shard)).as("tables on %s", shard).doesNotContainAnyElementsOf(MOVED);
      }
    }
    // A sharded target's VSchema is its users'; Cancel leaves it alone, as Vitess does.
    assertThat(world().store().getRequired(world().store().keys().vschema(KS)).value().tables())
        .containsKeys("customer", "corder");
  }

  private static void assertSourceUntouched() throws Exception {
    assertThat(tables(world(), "commerce", "0")).containsExactlyInAnyOrder("product", "customer", "corder");
    assertThat(rows(world(), "commerce", "0", "customer")).isEqualTo(5);
    assertThat(triggers(world(), "commerce", "0")).isEmpty();
    assertThat(world().store().getRequired(world().store().keys().shard("commerce", "0")).value()
        .deniedTables(TabletType.PRIMARY)).isEmpty();
  }
}
