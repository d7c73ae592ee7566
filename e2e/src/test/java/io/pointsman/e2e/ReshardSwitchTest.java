package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.id;
import static io.pointsman.e2e.E2eChecks.misplacedRows;
import static io.pointsman.e2e.E2eChecks.primary;
import static io.pointsman.e2e.E2eChecks.primaryServing;
import static io.pointsman.e2e.E2eChecks.queryServiceDisabled;
import static io.pointsman.e2e.E2eChecks.references;
import static io.pointsman.e2e.E2eChecks.rows;
import static io.pointsman.e2e.E2eChecks.srvKeyspace;
import static io.pointsman.e2e.E2eChecks.streams;
import static io.pointsman.e2e.E2eChecks.tables;
import static io.pointsman.e2e.E2eChecks.triggers;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static io.pointsman.e2e.TrafficStates.READS_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.mysql.Journal;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.sandbox.load.LoadOptions;
import io.pointsman.sandbox.load.LoadVerifier;
import io.pointsman.sandbox.load.LoadWriter;
import io.pointsman.sandbox.load.VerificationReport;
import io.pointsman.sandbox.load.WriteFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reshard of customer (-80,80- into four shards) on one sandbox with all seven primaries, each
 * test building on the state the previous one left: first a MoveTables brings the customers in
 * (completed with renameTables), then a reads-only switch that Cancel sends back, then a fresh
 * Reshard switched, dry-run, reversed, switched again and completed under write load.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReshardSwitchTest {
  private static final Logger log = LoggerFactory.getLogger(ReshardSwitchTest.class);
  private static final String KS = "customer";
  private static final String WF = "cust2cust";
  private static final String MOVE = "commerce2customer";
  private static final List<String> SOURCES = List.of("-80", "80-");
  private static final List<String> TARGETS = List.of("-40", "40-80", "80-c0", "c0-");
  private static final List<TabletType> SERVED = List.of(TabletType.PRIMARY, TabletType.REPLICA, TabletType.RDONLY);
  private static final SwitchTrafficRequest ALL = SwitchTrafficRequest.of(WF, KS);

  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.reshard().build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @Test
  @Order(1)
  void moveTablesCompleteWithRenameTablesKeepsTheSourceTablesAsOldCopies() throws Exception {
    world().createMoveTables();
    ActionResult switched = world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, MOVE))
        .switchTraffic(SwitchTrafficRequest.of(MOVE, KS));
    assertThat(switched.currentState()).isEqualTo(ALL_SWITCHED);

    ActionResult done = world().workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION, KS, MOVE))
        .complete(CompleteRequest.of(MOVE, KS).with(false, false, true, false));

    assertThat(done.summary())
        .isEqualTo("Successfully completed the commerce2customer workflow in the customer keyspace");
    assertThat(tables(world(), "commerce", "0")).containsExactlyInAnyOrder("product", "_customer_old", "_corder_old");
    assertThat(rows(world(), "commerce", "0", "_customer_old")).isEqualTo(5);
    assertThat(triggers(world(), "commerce", "0")).as("the write barrier left with the renamed tables").isEmpty();
    assertThat(world().store().getRequired(world().store().keys().vschema("commerce")).value().tables())
        .containsOnlyKeys("product");
    assertThat(world().store().getRequired(world().store().keys().shard("commerce", "0")).value()
        .deniedTables(TabletType.PRIMARY)).isEmpty();
    assertThat(world().store().get(world().store().keys().routingRules())).isEmpty();
    assertThat(streams(world(), "commerce", "0", MOVE + "_reverse")).isEmpty();
    for (String shard : SOURCES) {
      assertThat(streams(world(), KS, shard, MOVE)).isEmpty();
      assertThat(world().store().getRequired(world().store().keys().shard(KS, shard)).value()
          .deniedTables(TabletType.PRIMARY)).isEmpty();
    }
    assertThat(rows(world(), KS, "-80", "customer") + rows(world(), KS, "80-", "customer")).isEqualTo(5);
  }

  @Test
  @Order(2)
  void readsOnlySwitchThenCancelLeavesServingAsBeforeTheWorkflow() throws Exception {
    String srvBefore = rawSrvKeyspace();
    Map<String, Shard> shardsBefore = shardRecords();
    world().createReshard();
    assertThat(TARGETS.stream().mapToLong(s -> uncheckedRows(s, "customer")).sum()).isEqualTo(5);

    ActionResult reads = world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF))
        .switchTraffic(ALL.withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY)));

    assertThat(reads.startState()).isEqualTo(NOT_SWITCHED);
    assertThat(reads.currentState()).isEqualTo(READS_SWITCHED);
    SrvKeyspace srv = srvKeyspace(world(), KS);
    assertThat(references(srv, TabletType.REPLICA)).containsExactlyElementsOf(TARGETS);
    assertThat(references(srv, TabletType.RDONLY)).containsExactlyElementsOf(TARGETS);
    assertThat(references(srv, TabletType.PRIMARY)).containsExactlyElementsOf(SOURCES);
    assertThat(queryServiceDisabled(srv, TabletType.PRIMARY)).isEmpty();
    for (String shard : SOURCES) {
      assertThat(primaryServing(world(), KS, shard)).isTrue();
      assertThat(world().services.barrier().deniedTables(primary(world(), KS, shard))).isEmpty();
      assertThat(streams(world(), KS, shard, WF + "_reverse")).isEmpty();
    }
    for (String shard : TARGETS) {
      assertThat(primaryServing(world(), KS, shard)).isFalse();
      assertThat(streams(world(), KS, shard, WF)).isNotEmpty().noneMatch(Stream::isFrozen);
    }

    CancelMigrationWorkflow dry = world().workflow(CancelMigrationWorkflow.class,
        id(Pointsman.CANCEL_MIGRATION, KS, WF));
    ActionResult plan = DryRunSnapshot.assertChangesNothing(world(),
        () -> dry.cancel(CancelRequest.of(WF, KS).with(false, false, true)));
    assertThat(plan.dryRunResults()).contains("Lock workflow customer/cust2cust", "Lock keyspace customer",
        "Switch reads of tablet type REPLICA back to keyspace customer in cells [zone1]",
        "Switch reads of tablet type RDONLY back to keyspace customer in cells [zone1]",
        "Shard tablet controls that read switches left on [-80, 80-, -40, 40-80, 80-c0, c0-] will be removed from"
            + " the SrvKeyspace of keyspace customer",
        "Unlock keyspace customer", "Unlock workflow customer/cust2cust");
    assertThat(dry.progress().plan()).isEqualTo(plan.dryRunResults());

    ActionResult cancelled = world().workflow(CancelMigrationWorkflow.class, id(Pointsman.CANCEL_MIGRATION, KS, WF))
        .cancel(CancelRequest.of(WF, KS));

    assertThat(cancelled.summary()).isEqualTo("Successfully cancelled the cust2cust workflow in the customer keyspace");
    // Vitess leaves Reshard reads switched after Cancel; pointsman sends them back, leaving no trace.
    assertThat(rawSrvKeyspace()).isEqualTo(srvBefore);
    assertThat(shardRecords()).isEqualTo(shardsBefore);
    for (String shard : TARGETS) {
      assertThat(streams(world(), KS, shard, WF)).isEmpty();
      assertThat(tables(world(), KS, shard)).as("tables on target %s", shard).isEmpty();
    }
  }

  @Test
  @Order(3)
  void switchTrafficReachesTheStateVitessReports() throws Exception {
    world().createReshard();
    MigrationInfo info = new SwitchActivitiesImpl(world().services).buildTrafficSwitcher(KS, WF);
    assertThat(info.migrationType()).isEqualTo(MigrationType.SHARDS);

    SwitchTrafficWorkflow dry = world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF));
    ActionResult plan = DryRunSnapshot.assertChangesNothing(world(), () -> dry.switchTraffic(ALL.withDryRun(true)));
    log.info("SwitchTraffic dry run:\n{}", String.join("\n", plan.dryRunResults()));
    assertThat(plan.summary()).startsWith("SwitchTraffic dry run results for workflow customer.cust2cust at ");
    assertThat(plan.dryRunResults()).startsWith("Lock workflow customer/cust2cust", "Lock keyspace customer")
        .endsWith("Unlock keyspace customer", "Unlock workflow customer/cust2cust")
        .contains("Switch reads from keyspace customer to keyspace customer for shards [-80, 80-] to shards"
            + " [-40, 40-80, 80-c0, c0-] for tablet types [REPLICA] in cells [zone1]",
            "Create reverse vreplication workflow cust2cust_reverse",
            "Enable writes on keyspace customer for shards [-40, 40-80, 80-c0, c0-]",
            "Switch routing from keyspace customer to keyspace customer",
            "IsPrimaryServing will be set to false for [-80, 80-] and to true for [-40, 40-80, 80-c0, c0-]");
    assertThat(plan.dryRunResults()).anySatisfy(line -> assertThat(line)
        .matches("Stop writes on keyspace customer for shards \\[-80, 80-\\]: \\[keyspace:customer;shard:-80;"
            + "position:MariaDB/\\d+-\\d+-\\d+.*, keyspace:customer;shard:80-;position:MariaDB/\\d+-\\d+-\\d+.*\\]"));
    for (String shard : SOURCES) {
      // Nothing writes to the sources meanwhile: the plan shows where they stand now.
      String position = world().services.positions().current(primary(world(), KS, shard)).encode();
      assertThat(plan.dryRunResults()).anySatisfy(line -> assertThat(line)
          .contains("keyspace:customer;shard:" + shard + ";position:" + position));
    }
    assertThat(plan.dryRunResults())
        .contains("Create journal entries on source databases (migration id " + info.migrationId() + ")");
    assertThat(dry.progress().plan()).isEqualTo(plan.dryRunResults());

    ActionResult switched = world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF))
        .switchTraffic(ALL);

    assertThat(switched.summary()).isEqualTo("SwitchTraffic was successful for workflow customer.cust2cust");
    assertThat(switched.startState()).isEqualTo(NOT_SWITCHED);
    assertThat(switched.currentState()).isEqualTo(ALL_SWITCHED);
    SrvKeyspace srv = srvKeyspace(world(), KS);
    for (TabletType type : SERVED) {
      assertThat(references(srv, type)).as("%s partition", type).containsExactlyElementsOf(TARGETS);
    }
    assertThat(queryServiceDisabled(srv, TabletType.PRIMARY)).isEmpty();
    for (String shard : SOURCES) {
      assertThat(primaryServing(world(), KS, shard)).as("source %s serving", shard).isFalse();
      assertThat(world().services.barrier().deniedTables(primary(world(), KS, shard)))
          .as("write barrier on source %s", shard).containsExactlyInAnyOrder("customer", "corder");
      Journal journal = world().services.journals().read(primary(world(), KS, shard), info.migrationId()).orElseThrow();
      assertThat(journal.migrationType()).isEqualTo(Journal.MigrationType.SHARDS);
      assertThat(journal.participants()).containsExactly(new Journal.KeyspaceShard(KS, "-80"),
          new Journal.KeyspaceShard(KS, "80-"));
      assertThat(journal.shardGtids()).extracting(Journal.ShardGtid::shard).containsExactlyElementsOf(TARGETS);
      List<Stream> reverse = streams(world(), KS, shard, WF + "_reverse");
      assertThat(reverse).hasSize(2).allMatch(s -> s.state() == StreamState.RUNNING);
    }
    for (String shard : TARGETS) {
      assertThat(primaryServing(world(), KS, shard)).as("target %s serving", shard).isTrue();
      assertThat(streams(world(), KS, shard, WF)).isNotEmpty().allMatch(Stream::isFrozen);
    }
  }

  @Test
  @Order(4)
  void dryRunsOfReverseTrafficAndCompleteChangeNothing() throws Exception {
    ReverseTrafficWorkflow reverse = world().workflow(ReverseTrafficWorkflow.class,
        id(Pointsman.REVERSE_TRAFFIC, KS, WF));
    ActionResult back = DryRunSnapshot.assertChangesNothing(world(),
        () -> reverse.reverseTraffic(ALL.withDryRun(true)));
    log.info("ReverseTraffic dry run:\n{}", String.join("\n", back.dryRunResults()));
    assertThat(back.summary()).startsWith("ReverseTraffic dry run results for workflow customer.cust2cust at ");
    assertThat(back.dryRunResults()).contains("Lock keyspace customer",
        "Switch reads from keyspace customer to keyspace customer for shards [-40, 40-80, 80-c0, c0-] to shards"
            + " [-80, 80-] for tablet types [RDONLY] in cells [zone1]",
        "Create reverse vreplication workflow cust2cust",
        "IsPrimaryServing will be set to false for [-40, 40-80, 80-c0, c0-] and to true for [-80, 80-]",
        "Unlock keyspace customer");
    assertThat(back.dryRunResults()).anySatisfy(line -> assertThat(line)
        .startsWith("Stop writes on keyspace customer for shards [-40, 40-80, 80-c0, c0-]: "
            + "[keyspace:customer;shard:-40;position:MariaDB/"));
    assertThat(reverse.progress().plan()).isEqualTo(back.dryRunResults());

    CompleteMigrationWorkflow complete = world().workflow(CompleteMigrationWorkflow.class,
        id(Pointsman.COMPLETE_MIGRATION, KS, WF));
    ActionResult done = DryRunSnapshot.assertChangesNothing(world(),
        () -> complete.complete(CompleteRequest.of(WF, KS).with(false, false, false, true)));
    log.info("Complete dry run:\n{}", String.join("\n", done.dryRunResults()));
    assertThat(done.summary()).startsWith("CompleteMigration dry run results for workflow customer.cust2cust at ");
    assertThat(done.dryRunResults()).contains("Lock workflow customer/cust2cust", "Lock keyspace customer",
        "Unlock keyspace customer", "Unlock workflow customer/cust2cust");
    assertThat(done.dryRunResults()).anySatisfy(line -> assertThat(line).startsWith("Delete shards"));
    assertThat(done.dryRunResults()).anySatisfy(line -> assertThat(line)
        .startsWith("Delete reverse vreplication streams on sources"));
    assertThat(complete.progress().plan()).isEqualTo(done.dryRunResults());
  }

  @Test
  @Order(5)
  void reverseSwitchAndCompleteUnderLoadLoseNoAcknowledgedWrite() throws Exception {
    LoadWriter load = LoadWriter.start(world().router(), LoadOptions.builder()
        .ratePerSecond(40).writers(4).duration(Duration.ofMinutes(6))
        .writes(WriteFactory.customerInserts("customer.customer", 1_000_000)).build());
    world().onClose(load);
    await().atMost(Duration.ofSeconds(60)).until(() -> load.loadLog().records().stream()
        .filter(r -> r.acknowledged()).count() >= 20);

    MigrationInfo reverseInfo = new SwitchActivitiesImpl(world().services).buildTrafficSwitcher(KS, WF + "_reverse");
    ActionResult back = world().workflow(ReverseTrafficWorkflow.class, id(Pointsman.REVERSE_TRAFFIC, KS, WF))
        .reverseTraffic(ALL);
    assertThat(back.summary()).isEqualTo("ReverseTraffic was successful for workflow customer.cust2cust");
    assertThat(back.currentState()).isEqualTo(NOT_SWITCHED);
    SrvKeyspace srv = srvKeyspace(world(), KS);
    for (TabletType type : SERVED) {
      assertThat(references(srv, type)).as("%s partition", type).containsExactlyElementsOf(SOURCES);
    }
    for (String shard : SOURCES) {
      assertThat(primaryServing(world(), KS, shard)).isTrue();
      assertThat(world().services.barrier().deniedTables(primary(world(), KS, shard))).isEmpty();
      assertThat(streams(world(), KS, shard, WF + "_reverse")).isNotEmpty().allMatch(Stream::isFrozen);
    }
    for (String shard : TARGETS) {
      assertThat(primaryServing(world(), KS, shard)).isFalse();
      assertThat(world().services.barrier().deniedTables(primary(world(), KS, shard)))
          .containsExactlyInAnyOrder("customer", "corder");
      assertThat(streams(world(), KS, shard, WF)).isNotEmpty().allMatch(s -> s.state() == StreamState.RUNNING);
      // ReverseTraffic switches cust2cust_reverse forward: its journal is on the shards it stopped.
      assertThat(world().services.journals().read(primary(world(), KS, shard), reverseInfo.migrationId())).isPresent();
    }
    for (String shard : SOURCES) {
      // The reverse streams pointsman built filter by the source shard's range: nothing lands elsewhere.
      assertThat(misplacedRows(world(), KS, shard, "customer")).as("misplaced rows on %s", shard).isEmpty();
    }

    ActionResult again = world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF))
        .switchTraffic(ALL);
    assertThat(again.currentState()).isEqualTo(ALL_SWITCHED);
    Map<String, TabletAlias> sourceTablets = new TreeMap<>();
    for (String shard : SOURCES) {
      sourceTablets.put(shard,
          world().store().getRequired(world().store().keys().shard(KS, shard)).value().primaryAlias());
    }
    // The sandbox runs primaries only; a replica's record shows Complete deletes every tablet of a shard.
    TabletAlias sourceReplica = replicaRecord("-80", 301);
    TabletAlias targetReplica = replicaRecord("-40", 501);

    ActionResult done = world().workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION, KS, WF))
        .complete(CompleteRequest.of(WF, KS));
    assertThat(done.summary()).isEqualTo("Successfully completed the cust2cust workflow in the customer keyspace");

    // the load must span the actions: at least 50 writes acknowledged, however fast they went
    await().atMost(Duration.ofSeconds(30)).until(() -> load.loadLog().acknowledged() > 50);
    load.close();
    VerificationReport report = new LoadVerifier(world().router(), "customer.customer", "customer_id",
        TabletType.PRIMARY)
        .verify(load.loadLog());
    log.info("load across ReverseTraffic, SwitchTraffic, Complete: {}", report.summary());
    assertThat(report.acknowledged()).as(report.summary()).isGreaterThan(50);
    assertThat(report.missing()).as(report.summary()).isEmpty();
    assertThat(report.duplicated()).as(report.summary()).isEmpty();
    assertThat(report.lostNothing()).as(report.summary()).isTrue();

    long onTargets = 0;
    for (String shard : TARGETS) {
      assertThat(misplacedRows(world(), KS, shard, "customer")).as("misplaced rows on %s", shard).isEmpty();
      onTargets += rows(world(), KS, shard, "customer");
    }
    assertThat(onTargets).as("rows on the targets: the 5 moved customers and the writes that landed")
        .isBetween(5L + report.acknowledged(), 5L + load.loadLog().records().size());
    assertThat(world().store().listShards(KS)).containsExactlyInAnyOrderElementsOf(TARGETS);
    for (String shard : SOURCES) {
      assertThat(world().store().get(world().store().keys().shard(KS, shard))).as("shard record %s", shard).isEmpty();
      assertThat(world().store().get(world().store().keys().tablet(sourceTablets.get(shard))))
          .as("tablet record of %s", shard).isEmpty();
      assertThat(streams(world(), KS, shard, WF + "_reverse")).isEmpty();
    }
    assertThat(world().store().get(world().store().keys().tablet(sourceReplica))).as("replica of -80").isEmpty();
    assertThat(world().store().get(world().store().keys().tablet(targetReplica))).as("replica of -40").isPresent();
    for (String shard : TARGETS) {
      assertThat(streams(world(), KS, shard, WF)).isEmpty();
    }
  }

  private static TabletAlias replicaRecord(String shard, long uid) {
    TabletAlias alias = new TabletAlias(E2eChecks.CELL, uid);
    world().store().create(world().store().keys().tablet(alias), new Tablet(alias, "127.0.0.1", Map.of(), KS, shard,
        KeyRange.ofShard(shard), TabletType.REPLICA, null, "127.0.0.1", 1));
    return alias;
  }

  /** The stored bytes, in hex: compared byte for byte. */
  private String rawSrvKeyspace() throws Exception {
    String key = world().paths.srvKeyspace(E2eChecks.CELL, KS);
    return java.util.HexFormat.of().formatHex(world().etcd.getKVClient()
        .get(io.etcd.jetcd.ByteSequence.from(key, java.nio.charset.StandardCharsets.UTF_8))
        .get().getKvs().get(0).getValue().getBytes());
  }

  private Map<String, Shard> shardRecords() {
    Map<String, Shard> out = new TreeMap<>();
    for (String shard : world().store().listShards(KS)) {
      out.put(shard, world().store().getRequired(world().store().keys().shard(KS, shard)).value());
    }
    return out;
  }

  private long uncheckedRows(String shard, String table) {
    try {
      return rows(world(), KS, shard, table);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
