package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.validate.TopologyValidator;
import io.pointsman.engine.validate.ValidationReport;
import io.pointsman.sandbox.cluster.SandboxLayout;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
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
 * The validator on a real sandbox: silent in every state a MoveTables goes through (before,
 * switched, reversed, completed; a Reshard before and after its switch), and naming the invariant
 * of each broken state built by hand, each one undone before the next so the workflow still completes.
 */
@Timeout(600)
class TopologyValidatorTest {
  private static final Logger log = LoggerFactory.getLogger(TopologyValidatorTest.class);
  private static final String WF = "commerce2customer";
  private static final String TARGET = "customer";
  private static final LockSet NO_LOCKS = TopologyStore.UNLOCKED;

  private static String id(String action) {
    return action + "-customer.commerce2customer-" + UUID.randomUUID();
  }

  @Test
  void legitimateStatesPassAndEachBrokenStateIsNamed() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      TopologyValidator validator = world.validator;
      world.createMoveTables();
      assertValid(validator, "NOT_SWITCHED");

      routingFlippedWhileTheSourceStaysWritable(world, validator);
      targetDenialLifted(world, validator, "BOTH_SIDES_WRITABLE");
      frozenWithoutRoutingSwitched(world, validator);
      orphanLockKeyWithoutLease(world, validator);
      assertValid(validator, "NOT_SWITCHED");

      SwitchTrafficRequest request = SwitchTrafficRequest.of(WF, TARGET);
      world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC)).switchTraffic(request);
      assertValid(validator, "ALL_SWITCHED");

      world.workflow(ReverseTrafficWorkflow.class, id(Pointsman.REVERSE_TRAFFIC)).reverseTraffic(request);
      assertValid(validator, "NOT_SWITCHED");
      // after a reverse the target keeps its write barrier: not writable, but the topology lies
      targetDenialLifted(world, validator, "UNROUTED_SIDE_NOT_DENIED");

      world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC)).switchTraffic(request);
      assertValid(validator, "ALL_SWITCHED");
      world.workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION))
          .complete(CompleteRequest.of(WF, TARGET));
      assertValid(validator, "NO_WORKFLOW");
    }
  }

  @Test
  void reshardStatesPassAndTwoServingShardSetsAreNamed() throws Exception {
    try (SwitchWorld world = SwitchWorld.start(false, UnaryOperator.identity())) {
      TopologyValidator validator = world.validator;
      world.createReshard();
      String wf = SandboxLayout.RESHARD_WORKFLOW;
      assertValid(validator, wf, "NOT_SWITCHED");

      // a target shard serving next to the sources: two shard sets take writes for one key range
      String target = SandboxLayout.RESHARD_TARGET_SHARDS.get(0);
      var key = world.store().keys().shard(TARGET, target);
      world.store().update(key, s -> s.withPrimaryServing(true), NO_LOCKS);
      ValidationReport broken = validator.validate(TARGET, wf);
      log.info("two serving shard sets:\n{}", broken.describe());
      assertThat(broken.invariants()).contains("PRIMARY_SERVING_NOT_ONE_SIDE");
      world.store().update(key, s -> s.withPrimaryServing(false), NO_LOCKS);
      assertValid(validator, wf, "NOT_SWITCHED");

      world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC))
          .switchTraffic(SwitchTrafficRequest.of(wf, TARGET));
      assertValid(validator, wf, "ALL_SWITCHED");
    }
  }

  private static void routingFlippedWhileTheSourceStaysWritable(SwitchWorld world, TopologyValidator validator) {
    RoutingRules before = world.store().getRequired(world.store().keys().routingRules()).value();
    Map<String, List<String>> flipped = new LinkedHashMap<>(before.asMap());
    for (String from : List.copyOf(flipped.keySet())) {
      if (!from.contains("@")) {
        String table = from.substring(from.indexOf('.') + 1);
        flipped.put(from, List.of(TARGET + "." + table));
      }
    }
    world.store().update(world.store().keys().routingRules(), r -> RoutingRules.fromMap(flipped), NO_LOCKS);
    ValidationReport broken = validator.validate(TARGET, WF);
    log.info("routing flipped:\n{}", broken.describe());
    assertThat(broken.invariants()).contains("WRITES_ROUTED_TO_DENIED_SIDE", "SRV_VSCHEMA_STALE");
    world.store().update(world.store().keys().routingRules(), r -> before, NO_LOCKS);
  }

  private static void targetDenialLifted(SwitchWorld world, TopologyValidator validator, String expected) {
    List<String> shards = world.store().listShards(TARGET);
    Map<String, List<String>> denied = new LinkedHashMap<>();
    for (String shard : shards) {
      var key = world.store().keys().shard(TARGET, shard);
      denied.put(shard, world.store().getRequired(key).value().deniedTables(TabletType.PRIMARY));
      world.store().update(key, s -> s.withDeniedTables(TabletType.PRIMARY, denied.get(shard), true), NO_LOCKS);
    }
    ValidationReport broken = validator.validate(TARGET, WF);
    log.info("target denial lifted:\n{}", broken.describe());
    assertThat(broken.invariants()).contains(expected, "UNROUTED_SIDE_NOT_DENIED");
    for (String shard : shards) {
      world.store().update(world.store().keys().shard(TARGET, shard),
          s -> s.withDeniedTables(TabletType.PRIMARY, denied.get(shard), false), NO_LOCKS);
    }
  }

  private static void frozenWithoutRoutingSwitched(SwitchWorld world, TopologyValidator validator)
      throws Exception {
    PrimaryEndpoint ep = world.services.primaries().resolve(TARGET, world.store().listShards(TARGET).get(0));
    setMessage(world, ep, "FROZEN", "");
    try {
      ValidationReport broken = validator.validate(TARGET, WF);
      log.info("forward streams frozen:\n{}", broken.describe());
      assertThat(broken.invariants()).contains("FROZEN_WITHOUT_WRITES_SWITCHED");
    } finally {
      setMessage(world, ep, "", "FROZEN");
    }
  }

  private static void setMessage(SwitchWorld world, PrimaryEndpoint ep, String to, String from) throws Exception {
    try (Connection c = world.services.pools().connection(ep); Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE " + ep.sidecarDb() + ".vreplication SET message = '" + to + "' WHERE workflow = '"
          + WF + "' AND message = '" + from + "'");
    }
  }

  private static void orphanLockKeyWithoutLease(SwitchWorld world, TopologyValidator validator) throws Exception {
    String dir = world.paths.namedLockDir(Pointsman.namedLock(TARGET, WF));
    ByteSequence key = ByteSequence.from(TopoPaths.locksPrefix(dir) + "7587001", StandardCharsets.UTF_8);
    world.etcd.getKVClient().put(key, ByteSequence.from("{}", StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
    try {
      ValidationReport broken = validator.validate(TARGET, WF);
      log.info("orphan lock key:\n{}", broken.describe());
      assertThat(broken.invariants()).containsExactly("LOCK_KEY_WITHOUT_LEASE");
    } finally {
      world.etcd.getKVClient().delete(key).get(30, TimeUnit.SECONDS);
    }
  }

  private static void assertValid(TopologyValidator validator, String state) {
    assertValid(validator, WF, state);
  }

  private static void assertValid(TopologyValidator validator, String workflow, String state) {
    ValidatorChecks.assertDefined(validator.validate(TARGET, workflow), state);
  }
}
