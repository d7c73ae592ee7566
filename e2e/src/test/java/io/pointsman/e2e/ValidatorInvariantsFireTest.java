package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.PutOption;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockContents;
import io.pointsman.engine.lock.LockOptions;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.switching.SrvKeyspaceEdits;
import io.pointsman.engine.topo.RecordKey;
import io.pointsman.engine.topo.RecordWrite;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.MirrorRule;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.validate.EndedExecutions;
import io.pointsman.engine.validate.ValidationReport;
import io.pointsman.sandbox.cluster.SandboxLayout;
import io.temporal.client.WorkflowStub;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The negative controls of the validator, the oracle of every failure test: each invariant is
 * broken on purpose on a real sandbox, through the topology store, the primaries' sidecar tables or
 * etcd, and the validator must name exactly it (or, where one break necessarily breaks a second
 * invariant too, exactly those two). Each break is undone and the world checked clean before the
 * next, so one break cannot hide behind another.
 *
 * <p>{@code LOCK_KEY_LEASE_EXPIRED} has no control: etcd deletes a lease's keys when the lease
 * expires, atomically, so a lock key with a dead lease cannot be built on a real etcd; the
 * validator re-reads such a key before naming it, so the race of a lease that expires while it
 * reads is no false alarm either.
 */
@Timeout(900)
class ValidatorInvariantsFireTest {
  private static final Logger log = LoggerFactory.getLogger(ValidatorInvariantsFireTest.class);
  private static final String WF = SandboxLayout.MOVETABLES_WORKFLOW;
  private static final String REVERSE = WF + "_reverse";
  private static final String SOURCE = SandboxLayout.COMMERCE;
  private static final String TARGET = SandboxLayout.CUSTOMER;
  private static final String TABLE = "customer";
  private static final LockSet NO_LOCKS = TopologyStore.UNLOCKED;
  private static final Duration DDL_TIMEOUT = Duration.ofSeconds(30);

  /** One way to break the world, and how to mend it. */
  private interface Break {
    void apply() throws Exception;
  }

  @Test
  void eachMoveTablesInvariantIsNamedWhenBroken() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      TopologyStore store = world.store();
      PrimaryEndpoint source = world.services.primaries().resolve(SOURCE, "0");
      String firstTargetShard = store.listShards(TARGET).get(0);
      PrimaryEndpoint target = world.services.primaries().resolve(TARGET, firstTargetShard);
      clean(world, "NOT_SWITCHED");

      // ---- not switched ----
      // 'customer' routes to the target while 'commerce.customer' (what writes follow) stays on the source
      RoutingRules rules = store.getRequired(store.keys().routingRules()).value();
      fires(world, "NOT_SWITCHED", List.of("ROUTING_RULES_DISAGREE"),
          () -> setRules(world, withRule(rules, TABLE, TARGET + "." + TABLE)),
          () -> setRules(world, rules));

      // the source denies the table too: nobody can write it
      var sourceShard = store.keys().shard(SOURCE, "0");
      fires(world, "NOT_SWITCHED", List.of("NO_SIDE_WRITABLE"),
          () -> store.update(sourceShard, s -> s.withDeniedTables(TabletType.PRIMARY, List.of(TABLE), false), NO_LOCKS),
          () -> store.update(sourceShard, s -> s.withDeniedTables(TabletType.PRIMARY, List.of(TABLE), true), NO_LOCKS));

      // one target shard of two stops denying: partial, and so the unrouted side is not (wholly) denied
      var targetShard = store.keys().shard(TARGET, firstTargetShard);
      fires(world, "NOT_SWITCHED", List.of("PARTIAL_DENIAL", "UNROUTED_SIDE_NOT_DENIED"),
          () -> store.update(targetShard, s -> s.withDeniedTables(TabletType.PRIMARY, List.of(TABLE), true), NO_LOCKS),
          () -> store.update(targetShard, s -> s.withDeniedTables(TabletType.PRIMARY, List.of(TABLE), false), NO_LOCKS));

      // a target primary serves reads of its denied tables with nothing of the workflow mirrored to it
      // (what pointsman's read switch left before it set allow_reads from the mirror rules, as Vitess's does)
      fires(world, "NOT_SWITCHED", List.of("TARGET_READS_ALLOWED_WITHOUT_MIRRORING"),
          () -> store.update(targetShard, s -> s.withPrimaryAllowReads(true), NO_LOCKS),
          () -> store.update(targetShard, s -> s.withPrimaryAllowReads(false), NO_LOCKS));
      // the same while the workflow's replica reads are mirrored: what vtctldclient MirrorTraffic leaves
      var mirrorRules = store.keys().mirrorRules();
      fires(world, "NOT_SWITCHED", List.of(),
          () -> {
            store.create(mirrorRules, new MirrorRules(List.of(
                new MirrorRule(SOURCE + "." + TABLE + "@replica", TARGET + "." + TABLE, 10))));
            store.update(targetShard, s -> s.withPrimaryAllowReads(true), NO_LOCKS);
          },
          () -> {
            store.update(targetShard, s -> s.withPrimaryAllowReads(false), NO_LOCKS);
            store.commit(List.of(RecordWrite.delete(store.getRequired(mirrorRules))), NO_LOCKS);
          });

      // ---- all switched ----
      SwitchTrafficRequest request = SwitchTrafficRequest.of(WF, TARGET);
      SwitchTrafficWorkflow sw = world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC));
      sw.switchTraffic(request);
      clean(world, "ALL_SWITCHED");

      // the barrier's DDL is fenced: it runs under a lock of the source keyspace, as a switch's would
      try (HeldLock held = world.services.locks().lockKeyspace(SOURCE, LockOptions.builder()
          .action("negative control").ttl(Duration.ofMinutes(1)).build())) {
        LockSet locks = LockSet.of(held.token());
        fires(world, "ALL_SWITCHED", List.of("SOURCE_WRITE_BARRIER_MISSING"),
            () -> world.services.barrier().allow(source, WriteScope.tables(List.of(TABLE)), locks, DDL_TIMEOUT),
            () -> world.services.barrier().deny(source, WriteScope.tables(List.of(TABLE)), locks, DDL_TIMEOUT));
      }

      // the journal's id no longer names this migration (negated, so it can be put back as it was)
      fires(world, "ALL_SWITCHED", List.of("JOURNAL_MISSING"),
          () -> sql(world, source, "UPDATE " + source.sidecarDb() + ".resharding_journal SET id = -id WHERE id > 0"),
          () -> sql(world, source, "UPDATE " + source.sidecarDb() + ".resharding_journal SET id = -id WHERE id < 0"));

      fires(world, "ALL_SWITCHED", List.of("REVERSE_STREAMS_MISSING"),
          () -> renameStreams(world, source, REVERSE, "hidden_reverse"),
          () -> renameStreams(world, source, "hidden_reverse", REVERSE));

      fires(world, "ALL_SWITCHED", List.of("REVERSE_STREAMS_FROZEN_STATE"),
          () -> sql(world, source, "UPDATE " + source.sidecarDb() + ".vreplication SET message = 'FROZEN' WHERE workflow = '"
              + REVERSE + "' AND message <> 'FROZEN' LIMIT 1"),
          () -> sql(world, source, "UPDATE " + source.sidecarDb() + ".vreplication SET message = '' WHERE workflow = '"
              + REVERSE + "' AND message = 'FROZEN'"));

      fires(world, "ALL_SWITCHED", List.of("NOT_FROZEN_AFTER_WRITES_SWITCHED"),
          () -> sql(world, target, "UPDATE " + target.sidecarDb() + ".vreplication SET message = '' WHERE workflow = '"
              + WF + "' AND message = 'FROZEN'"),
          () -> sql(world, target, "UPDATE " + target.sidecarDb() + ".vreplication SET message = 'FROZEN' WHERE workflow = '"
              + WF + "' AND message = ''"));

      // replica reads back on the source while writes stay switched
      RoutingRules switched = store.getRequired(store.keys().routingRules()).value();
      fires(world, "ALL_SWITCHED", List.of("WRITES_SWITCHED_BEFORE_READS"),
          () -> setRules(world, readsBackToSource(switched)),
          () -> setRules(world, switched));

      // a lock key, with a live lease, held for the switch that has ended
      WorkflowStub stub = WorkflowStub.fromTyped(sw);
      String runId = stub.getExecution().getRunId();
      String lockDir = world.paths.namedLockDir(Pointsman.namedLock(TARGET, WF));
      ByteSequence key = ByteSequence.from(TopoPaths.locksPrefix(lockDir) + "7587002", StandardCharsets.UTF_8);
      long lease = world.etcd.getLeaseClient().grant(300).get(30, TimeUnit.SECONDS).getID();
      try {
        LockContents held = new LockContents("SwitchTraffic", "host", "user", "2025-01-01T00:00:00Z", Map.of(),
            LockContents.RUNNING, "default", stub.getExecution().getWorkflowId(), runId);
        world.etcd.getKVClient().put(key, ByteSequence.from(held.toJson(), StandardCharsets.UTF_8),
            PutOption.builder().withLeaseId(lease).build()).get(30, TimeUnit.SECONDS);
        ValidationReport byLease = world.validator.validate(TARGET, WF);
        assertThat(byLease.violations()).as("by its lease alone the key looks held: " + byLease.describe()).isEmpty();
        ValidationReport broken = world.validator.validate(TARGET, WF, world.endedExecutions());
        log.info("lock key of an ended workflow:\n{}", broken.describe());
        assertThat(broken.invariants()).as(broken.describe()).containsExactly("LOCK_KEY_OF_ENDED_WORKFLOW");
        assertThat(broken.violations().get(0).detail()).contains(runId);
        ValidationReport otherEnded = world.validator.validate(TARGET, WF,
            EndedExecutions.ofWorkflowIds(List.of("some-other-workflow")));
        assertThat(otherEnded.violations()).as("a key of a workflow not known to have ended is no violation").isEmpty();
      } finally {
        world.etcd.getLeaseClient().revoke(lease).get(30, TimeUnit.SECONDS);
      }
      clean(world, "ALL_SWITCHED");

      // ---- reversed: writes back on the source, the reverse streams FROZEN ----
      world.workflow(ReverseTrafficWorkflow.class, id(Pointsman.REVERSE_TRAFFIC)).reverseTraffic(request);
      clean(world, "NOT_SWITCHED");
      fires(world, "NOT_SWITCHED", List.of("REVERSE_STREAMS_WITHOUT_SWITCH"),
          () -> sql(world, source, "UPDATE " + source.sidecarDb() + ".vreplication SET message = '' WHERE workflow = '"
              + REVERSE + "' AND message = 'FROZEN'"),
          () -> sql(world, source, "UPDATE " + source.sidecarDb() + ".vreplication SET message = 'FROZEN' WHERE workflow = '"
              + REVERSE + "' AND message = ''"));
    }
  }

  @Test
  void eachReshardServingInvariantIsNamedWhenBroken() throws Exception {
    try (SwitchWorld world = SwitchWorld.start(false, UnaryOperator.identity())) {
      world.createReshard();
      String wf = SandboxLayout.RESHARD_WORKFLOW;
      TopologyStore store = world.store();
      String cell = store.listCells().get(0);
      RecordKey<SrvKeyspace> srvKey = store.keys().srvKeyspace(cell, TARGET);
      SrvKeyspace before = store.getRequired(srvKey).value();
      List<String> sources = SandboxLayout.RESHARD_SOURCE_SHARDS;
      List<String> targets = SandboxLayout.RESHARD_TARGET_SHARDS;
      assertThat(world.validator.validate(TARGET, wf).violations()).isEmpty();

      // PRIMARY served by the target shards while the sources are still primary-serving
      firesFor(world, wf, "NOT_SWITCHED", List.of("SRV_KEYSPACE_PRIMARY_MISMATCH"),
          () -> store.update(srvKey, s -> SrvKeyspaceEdits.migrateServedType(s, TabletType.PRIMARY, targets, sources),
              NO_LOCKS),
          () -> store.update(srvKey, s -> before, NO_LOCKS));

      firesFor(world, wf, "NOT_SWITCHED", List.of("SERVING_SHARD_QUERY_SERVICE_DISABLED"),
          () -> store.update(srvKey, s -> SrvKeyspaceEdits.setQueryServiceDisabled(s, TabletType.PRIMARY,
              List.of(sources.get(0)), true), NO_LOCKS),
          () -> store.update(srvKey, s -> before, NO_LOCKS));

      // REPLICA served by all the sources and one target: neither shard set
      firesFor(world, wf, "NOT_SWITCHED", List.of("READ_PARTITION_MIXED"),
          () -> store.update(srvKey, s -> SrvKeyspaceEdits.migrateServedType(s, TabletType.REPLICA,
              List.of(targets.get(0)), List.of()), NO_LOCKS),
          () -> store.update(srvKey, s -> before, NO_LOCKS));
    }
  }

  private static void fires(SwitchWorld world, String state, List<String> expected, Break apply, Break undo)
      throws Exception {
    firesFor(world, WF, state, expected, apply, undo);
  }

  /** Breaks, sees exactly {@code expected} named, mends, and sees the world clean again. */
  private static void firesFor(SwitchWorld world, String workflow, String state, List<String> expected, Break apply,
      Break undo) throws Exception {
    apply.apply();
    try {
      ValidationReport broken = world.validator.validate(TARGET, workflow, world.endedExecutions());
      log.info("{} broken:\n{}", expected, broken.describe());
      assertThat(broken.invariants()).as(broken.describe()).containsOnlyElementsOf(expected)
          .containsAll(expected);
      assertThat(broken.state()).as(broken.describe()).isEqualTo(state);
    } finally {
      undo.apply();
    }
    ValidationReport mended = world.validator.validate(TARGET, workflow, world.endedExecutions());
    assertThat(mended.violations()).as("after mending " + expected + ": " + mended.describe()).isEmpty();
  }

  private static void clean(SwitchWorld world, String state) {
    world.assertDefinedState(TARGET, WF, state);
  }

  /** Writes the global routing rules and every cell's SrvVSchema copy of them, so they agree. */
  private static void setRules(SwitchWorld world, RoutingRules rules) {
    TopologyStore store = world.store();
    store.update(store.keys().routingRules(), r -> rules, NO_LOCKS);
    for (String cell : store.listCells()) {
      store.update(store.keys().srvVSchema(cell),
          v -> v.withRoutingRules(rules), NO_LOCKS);
    }
  }

  private static RoutingRules withRule(RoutingRules rules, String from, String to) {
    Map<String, List<String>> m = new LinkedHashMap<>(rules.asMap());
    m.put(from, List.of(to));
    return RoutingRules.fromMap(m);
  }

  /** Every {@code ...@replica} rule routed back to the source keyspace's table. */
  private static RoutingRules readsBackToSource(RoutingRules rules) {
    Map<String, List<String>> m = new LinkedHashMap<>(rules.asMap());
    for (String from : List.copyOf(m.keySet())) {
      if (from.endsWith("@replica")) {
        String bare = from.substring(0, from.indexOf('@'));
        m.put(from, List.of(SOURCE + "." + bare.substring(bare.indexOf('.') + 1)));
      }
    }
    return RoutingRules.fromMap(m);
  }

  private static void renameStreams(SwitchWorld world, PrimaryEndpoint ep, String from, String to) throws Exception {
    sql(world, ep, "UPDATE " + ep.sidecarDb() + ".vreplication SET workflow = '" + to + "' WHERE workflow = '" + from
        + "'");
  }

  private static void sql(SwitchWorld world, PrimaryEndpoint ep, String sql) throws Exception {
    try (Connection c = world.services.pools().connection(ep); Statement st = c.createStatement()) {
      int n = st.executeUpdate(sql);
      assertThat(n).as("rows changed by " + sql).isPositive();
    }
  }

  private static String id(String action) {
    return Pointsman.workflowId(action, TARGET, WF) + "-" + UUID.randomUUID();
  }
}
