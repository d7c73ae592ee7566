package io.pointsman.activities;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamRef;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.primary.PrimaryBackend;
import io.pointsman.engine.switching.SrvVSchemaBuilder;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.testing.EtcdTestFixture;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.MirrorRule;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.VSchema;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The MirrorTraffic activities where they need no tablet: a partial set of the workflow's mirror
 * rules is refused (ALREADY_EXISTS, not retried) before the target primaries' allow_reads or any
 * record changes, and a run that has nothing to change writes nothing; the order of its writes; and
 * runs (MirrorTraffic's, and a read switch's, which clears allow_reads with the last mirror rule)
 * that follow a run whose refresh of the target primaries failed.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MirrorTableTrafficActivityTest extends EtcdTestFixture {
  private static final List<String> TABLES = List.of("customer", "corder");
  private static final MigrationInfo MOVE = new MigrationInfo("commerce2customer", "commerce", "customer",
      MigrationType.TABLES, TABLES, List.of("0"), List.of("-80", "80-"),
      List.of(new StreamRef("-80", 1, "0"), new StreamRef("80-", 2, "0")), 1, false);
  private static final MirrorRule ELSEWHERE = new MirrorRule("commerce.customer@replica", "other.customer", 7);
  private static final Map<String, TabletAlias> TARGET_PRIMARIES = Map.of(
      "-80", TabletAlias.parse("zone1-0000000200"), "80-", TabletAlias.parse("zone1-0000000300"));

  private Services services;
  private TestActivityEnvironment env;
  private SwitchActivities activities;
  private LockSet locks;

  MirrorTableTrafficActivityTest() {
    super(Part.STORE);
  }

  @BeforeEach
  void setUp() throws Exception {
    for (String cell : List.of("zone1", "zone2")) {
      store.create(store.keys().cellInfo(cell), new CellInfo("127.0.0.1:2379", "/vitess/" + cell));
    }
    for (String ks : List.of("commerce", "customer")) {
      store.create(store.keys().keyspace(ks), Keyspace.normal());
      store.create(store.keys().vschema(ks), new VSchema(false, Map.of(), Map.of()));
    }
    store.create(store.keys().shard("commerce", "0"),
        Shard.of(KeyRange.ofShard("0"), TabletAlias.parse("zone1-0000000100"), true));
    for (Map.Entry<String, TabletAlias> target : TARGET_PRIMARIES.entrySet()) {
      store.create(store.keys().shard("customer", target.getKey()),
          Shard.of(KeyRange.ofShard(target.getKey()), target.getValue(), true)
              .withDeniedTables(TabletType.PRIMARY, TABLES, false));
    }
    locks = LockSet.of(takeLock(paths.keyspaceDir("customer")));

    // AUTO: a primary whose Tablet record has a gRPC port is refreshed through vttablet's RPC; the
    // ones without (every test but one) through direct MySQL, where a refresh is nothing
    services = new Services(etcd, paths, MySqlOptions.builder().user("nobody").password("unused").build(),
        new TabletRpcOptions(Duration.ofSeconds(3), Duration.ofSeconds(1)), PrimaryBackend.AUTO);
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(new SwitchActivitiesImpl(services));
    activities = env.newActivityStub(SwitchActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build());
  }

  @AfterEach
  void tearDown() {
    env.close();
    services.close();
  }

  @Test
  void aPartialSetOfRulesIsRefusedBeforeAnyChangeAndNotRetried() {
    // 1 of the workflow's 2 REPLICA rules: mirroring them would mirror, so allow_reads would be set first
    store.create(store.keys().mirrorRules(), new MirrorRules(List.of(
        new MirrorRule("commerce.customer@replica", "customer.customer", 5), ELSEWHERE)));
    new SrvVSchemaBuilder(store).rebuild(List.of(), TopologyStore.UNLOCKED);
    Map<String, Long> before = revisions();

    assertThatThrownBy(() -> activities.mirrorTableTraffic(MOVE, List.of(TabletType.REPLICA), 50, locks))
        .isInstanceOf(ActivityFailure.class)
        .cause().isInstanceOfSatisfying(ApplicationFailure.class, f -> {
          assertThat(f.getType()).isEqualTo("ALREADY_EXISTS");
          assertThat(f.isNonRetryable()).isTrue();
          assertThat(f.getOriginalMessage()).startsWith("wrong number of pre-existing mirror rules");
        });

    assertThat(revisions()).as("no record written").isEqualTo(before);
    for (String shard : List.of("-80", "80-")) {
      assertThat(primaryAllowReads(shard)).as("allow_reads of %s", shard).isFalse();
    }
  }

  @Test
  void removingRulesThatDoNotExistWritesNothing() {
    store.create(store.keys().mirrorRules(), new MirrorRules(List.of(ELSEWHERE)));
    new SrvVSchemaBuilder(store).rebuild(List.of(), TopologyStore.UNLOCKED);
    Map<String, Long> before = revisions();

    activities.mirrorTableTraffic(MOVE, List.of(TabletType.PRIMARY, TabletType.REPLICA, TabletType.RDONLY), 0, locks);
    activities.allowTargetReadsWhileMirrored(MOVE, locks);

    assertThat(revisions()).isEqualTo(before);
    assertThat(store.getRequired(store.keys().mirrorRules()).value().rules()).containsExactly(ELSEWHERE);
    assertThat(primaryAllowReads("-80")).isFalse();
  }

  /**
   * The order of the step's etcd writes, by their revisions: mirroring, the target primaries allow
   * the reads before the rules and every cell's SrvVSchema (one commit) reach etcd, so vtgate sends
   * no mirrored query to a primary that would refuse it; removing the last rule, the rules go first
   * and allow_reads is cleared after, so no mirrored query is refused meanwhile either.
   */
  @Test
  void theTargetPrimariesAllowTheReadsBeforeTheRulesAreServedAndStopAfterTheyAreGone() {
    activities.mirrorTableTraffic(MOVE, List.of(TabletType.REPLICA), 5, locks);

    long rules = store.getRequired(store.keys().mirrorRules()).modRevision();
    for (String cell : store.listCells()) {
      assertThat(store.getRequired(store.keys().srvVSchema(cell)).modRevision())
          .as("%s's SrvVSchema, served in the rules' commit", cell).isEqualTo(rules);
    }
    for (String shard : List.of("-80", "80-")) {
      assertThat(primaryAllowReads(shard)).isTrue();
      assertThat(shardRevision(shard)).as("customer/%s allows the reads before the rules are served", shard)
          .isLessThan(rules);
    }

    activities.mirrorTableTraffic(MOVE, List.of(TabletType.REPLICA), 0, locks);

    long served = store.getRequired(store.keys().srvVSchema("zone1")).modRevision();
    assertThat(store.get(store.keys().mirrorRules())).as("the last rule removed").isEmpty();
    for (String shard : List.of("-80", "80-")) {
      assertThat(primaryAllowReads(shard)).isFalse();
      assertThat(shardRevision(shard)).as("customer/%s stops allowing the reads after the rules went", shard)
          .isGreaterThan(served);
    }
  }

  private long shardRevision(String shard) {
    return store.getRequired(store.keys().shard("customer", shard)).modRevision();
  }

  /**
   * The rules are served only after the target primaries were told to accept the mirrored reads
   * (SwitchActivities#mirrorTableTraffic: "set and the tablets refreshed before the rules are
   * served"). A run whose refresh failed has already written allow_reads; the next run (Temporal's
   * retry of the step, or the rerun its failure asks for) must still refresh the tablets before it
   * serves the rules, since nothing else tells a vttablet (its shard watch does not reload tablet
   * controls). Here no vttablet listens, so every run must fail and no rule may be served.
   */
  @Test
  void aRunAfterOneWhoseRefreshFailedStillRefreshesTheTargetsBeforeServingTheRules() {
    unreachableTargetPrimaries();

    assertThatThrownBy(() -> activities.mirrorTableTraffic(MOVE, List.of(TabletType.REPLICA), 5, locks))
        .as("first run: the target primaries cannot be refreshed").isInstanceOf(ActivityFailure.class);
    assertThat(primaryAllowReads("-80")).as("written before the refresh that failed").isTrue();
    assertThat(store.get(store.keys().mirrorRules())).as("not served after a failed refresh").isEmpty();

    assertThatThrownBy(() -> activities.mirrorTableTraffic(MOVE, List.of(TabletType.REPLICA), 5, locks))
        .as("the run again: the target primaries still cannot be refreshed").isInstanceOf(ActivityFailure.class);
    assertThat(store.get(store.keys().mirrorRules()))
        .as("no mirror rule served to target primaries never told to accept the mirrored reads").isEmpty();
  }

  /**
   * The same for a read switch that ends the mirroring: it clears the target primaries' allow_reads,
   * and the run after one whose refresh failed (which had already cleared it) must refresh them
   * still, or they would go on serving reads of their denied tables.
   */
  @Test
  void aReadSwitchAfterOneWhoseRefreshFailedStillRefreshesTheTargets() {
    unreachableTargetPrimaries();
    store.create(store.keys().mirrorRules(), new MirrorRules(List.of(
        new MirrorRule("commerce.customer@replica", "customer.customer", 5),
        new MirrorRule("commerce.corder@replica", "customer.corder", 5))));
    for (String shard : List.of("-80", "80-")) {
      store.update(store.keys().shard("customer", shard), s -> s.withPrimaryAllowReads(true), TopologyStore.UNLOCKED);
    }
    List<TabletType> replica = List.of(TabletType.REPLICA);

    assertThatThrownBy(() -> activities.switchReads(MOVE, replica, List.of(), Direction.FORWARD, locks))
        .as("first run: the target primaries cannot be refreshed").isInstanceOf(ActivityFailure.class);
    assertThat(primaryAllowReads("-80")).as("cleared before the refresh that failed").isFalse();

    assertThatThrownBy(() -> activities.switchReads(MOVE, replica, List.of(), Direction.FORWARD, locks))
        .as("the run again: the target primaries still cannot be refreshed").isInstanceOf(ActivityFailure.class);
  }

  /** Target primaries with a Tablet record whose gRPC port nobody listens on: every refresh fails. */
  private void unreachableTargetPrimaries() {
    int closed = LoopbackPorts.freePort();
    for (Map.Entry<String, TabletAlias> target : TARGET_PRIMARIES.entrySet()) {
      TabletAlias alias = target.getValue();
      store.create(store.keys().tablet(alias), new Tablet(alias, "127.0.0.1", Map.of("grpc", closed), "customer",
          target.getKey(), KeyRange.ofShard(target.getKey()), TabletType.PRIMARY, null, "127.0.0.1", 1));
    }
  }

  private boolean primaryAllowReads(String shard) {
    return store.getRequired(store.keys().shard("customer", shard)).value().tabletControl(TabletType.PRIMARY)
        .orElseThrow().allowReads();
  }

  /** The mod revision of every record MirrorTraffic may write. */
  private Map<String, Long> revisions() {
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("MirrorRules", store.get(store.keys().mirrorRules()).map(Versioned::modRevision).orElse(0L));
    for (String cell : store.listCells()) {
      out.put(cell, store.getRequired(store.keys().srvVSchema(cell)).modRevision());
    }
    for (String shard : List.of("-80", "80-")) {
      out.put("customer/" + shard, store.getRequired(store.keys().shard("customer", shard)).modRevision());
    }
    return out;
  }
}
