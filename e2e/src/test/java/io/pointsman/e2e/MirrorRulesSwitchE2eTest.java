package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.vitess.proto.Topodata;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import vschema.Vschema;

/**
 * A MoveTables switched on the sandbox while mirror rules (Vitess 24, e.g. set by vtctldclient
 * MirrorTraffic) mirror its tables to the target: the read switch drops those of the read types,
 * the write switch those of the primary, as Vitess's SwitchTraffic does; a mirror rule of a table
 * the workflow does not move stays, and every cell serves the global record. The dry run names each
 * removal as Vitess's does, and the target primaries' allow_reads follows what stays mirrored.
 */
@Timeout(600)
class MirrorRulesSwitchE2eTest {
  private static final String WF = "commerce2customer";
  private static final Vschema.MirrorRule UNRELATED = rule("commerce.product", "customer.product", 3);
  private static final List<String> TARGET_SHARDS = List.of("-80", "80-");

  @Test
  void switchTrafficRemovesTheMovedTablesMirrorRulesAndKeepsTheOthers() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      put(world, Vschema.MirrorRules.newBuilder()
          .addRules(rule("commerce.customer@replica", "customer.customer", 50))
          .addRules(rule("commerce.customer@rdonly", "customer.customer", 50))
          .addRules(rule("commerce.customer", "customer.customer", 10))
          .addRules(UNRELATED).build());
      allowTargetReads(world);
      // the dry run says that the switch ends the mirroring, in Vitess's words
      ActionResult plan = world.workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-dry-" + UUID.randomUUID())
          .switchTraffic(SwitchTrafficRequest.of(WF, "customer").withDryRun(true));
      assertThat(plan.dryRunResults()).containsSubsequence(
          "Mirroring 0.00 percent of traffic from keyspace commerce to keyspace customer for tablet types [REPLICA,RDONLY]",
          "Switch reads for tables [corder, customer] to keyspace customer for tablet types [REPLICA]",
          "Mirroring 0.00 percent of traffic from keyspace commerce to keyspace customer for tablet types [PRIMARY]",
          "Lock shard commerce/0");

      SwitchTrafficRequest reads = SwitchTrafficRequest.of(WF, "customer")
          .withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY));
      world.workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-reads-" + UUID.randomUUID()).switchTraffic(reads);
      Vschema.MirrorRules afterReads = Vschema.MirrorRules.newBuilder()
          .addRules(rule("commerce.customer", "customer.customer", 10)).addRules(UNRELATED).build();
      assertThat(Vschema.MirrorRules.parseFrom(get(world, world.paths.mirrorRules()))).isEqualTo(afterReads);
      assertServed(world, afterReads);
      for (String shard : TARGET_SHARDS) {
        assertThat(primaryControl(world, shard).getAllowReads())
            .as("customer/%s's PRIMARY control allows reads while its primary traffic is still mirrored", shard)
            .isTrue();
      }

      ActionResult writesPlan = world.workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-dry-" + UUID.randomUUID())
          .switchTraffic(SwitchTrafficRequest.of(WF, "customer").withDryRun(true));
      assertThat(writesPlan.dryRunResults()).as("once the reads are switched, only the primary is mirrored")
          .containsOnlyOnce("Mirroring 0.00 percent of traffic from keyspace commerce to keyspace customer"
              + " for tablet types [PRIMARY]")
          .noneMatch(line -> line.contains("[REPLICA,RDONLY]"));

      ActionResult all = world.workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-" + UUID.randomUUID())
          .switchTraffic(SwitchTrafficRequest.of(WF, "customer"));
      assertThat(all.currentState()).isEqualTo(ALL_SWITCHED);
      Vschema.MirrorRules afterWrites = Vschema.MirrorRules.newBuilder().addRules(UNRELATED).build();
      assertThat(Vschema.MirrorRules.parseFrom(get(world, world.paths.mirrorRules()))).isEqualTo(afterWrites);
      assertServed(world, afterWrites);
    }
  }

  /**
   * vtctldclient MirrorTraffic also lets the target primaries serve reads of the moved tables
   * (their tablet control's allow_reads), and Vitess's SwitchTraffic, removing the mirror rules,
   * sets it again from the workflow's rules that remain: with none left, the target primaries
   * refuse reads of the denied tables again, as before the mirroring.
   */
  @Test
  void switchingReadsThatEndTheMirroringStopsTheTargetPrimariesAllowingReads() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      put(world, Vschema.MirrorRules.newBuilder()
          .addRules(rule("commerce.customer@replica", "customer.customer", 50))
          .addRules(rule("commerce.customer@rdonly", "customer.customer", 50))
          .addRules(UNRELATED).build());
      allowTargetReads(world);

      world.workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-reads-" + UUID.randomUUID()).switchTraffic(
          SwitchTrafficRequest.of(WF, "customer").withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY)));

      for (String shard : TARGET_SHARDS) {
        Topodata.Shard.TabletControl primary = primaryControl(world, shard);
        assertThat(primary.getAllowReads()).as("allow_reads of customer/%s's PRIMARY control", shard).isFalse();
        assertThat(primary.getDeniedTablesList()).as("denied tables of customer/%s", shard)
            .containsExactlyInAnyOrder("customer", "corder");
      }
    }
  }

  /** Sets allow_reads on each target shard's PRIMARY tablet control, as vtctldclient MirrorTraffic does. */
  private static void allowTargetReads(SwitchWorld world) throws Exception {
    for (String shard : TARGET_SHARDS) {
      String key = world.paths.shard("customer", shard);
      Topodata.Shard.Builder b = Topodata.Shard.parseFrom(get(world, key)).toBuilder();
      for (Topodata.Shard.TabletControl.Builder tc : b.getTabletControlsBuilderList()) {
        if (tc.getTabletType() == Topodata.TabletType.PRIMARY) {
          tc.setAllowReads(true);
        }
      }
      world.etcd.getKVClient().put(ByteSequence.from(key, StandardCharsets.UTF_8),
          ByteSequence.from(b.build().toByteArray())).get(30, TimeUnit.SECONDS);
    }
  }

  private static Topodata.Shard.TabletControl primaryControl(SwitchWorld world, String shard) throws Exception {
    return Topodata.Shard.parseFrom(get(world, world.paths.shard("customer", shard))).getTabletControlsList().stream()
        .filter(tc -> tc.getTabletType() == Topodata.TabletType.PRIMARY).findFirst()
        .orElseThrow(() -> new AssertionError("customer/" + shard + " has no PRIMARY tablet control"));
  }

  private static void assertServed(SwitchWorld world, Vschema.MirrorRules expected) throws Exception {
    for (String cell : world.store().listCells()) {
      Vschema.SrvVSchema served = Vschema.SrvVSchema.parseFrom(get(world, world.store().keys().srvVSchema(cell).key()));
      assertThat(served.getMirrorRules()).as("mirror rules served in %s", cell).isEqualTo(expected);
    }
  }

  private static Vschema.MirrorRule rule(String from, String to, float percent) {
    return Vschema.MirrorRule.newBuilder().setFromTable(from).setToTable(to).setPercent(percent).build();
  }

  private static void put(SwitchWorld world, Vschema.MirrorRules rules) throws Exception {
    world.etcd.getKVClient().put(ByteSequence.from(world.paths.mirrorRules(), StandardCharsets.UTF_8),
        ByteSequence.from(rules.toByteArray())).get(30, TimeUnit.SECONDS);
  }

  private static byte[] get(SwitchWorld world, String key) throws Exception {
    GetResponse r = world.etcd.getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8))
        .get(30, TimeUnit.SECONDS);
    assertThat(r.getKvs()).as("key %s", key).hasSize(1);
    return r.getKvs().get(0).getValue().getBytes();
  }
}
