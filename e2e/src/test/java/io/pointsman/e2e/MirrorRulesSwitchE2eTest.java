package io.pointsman.e2e;

import static io.pointsman.e2e.MirrorRecords.TARGET_SHARDS;
import static io.pointsman.e2e.MirrorRecords.allowTargetReads;
import static io.pointsman.e2e.MirrorRecords.assertServed;
import static io.pointsman.e2e.MirrorRecords.get;
import static io.pointsman.e2e.MirrorRecords.primaryControl;
import static io.pointsman.e2e.MirrorRecords.put;
import static io.pointsman.e2e.MirrorRecords.rule;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.vitess.proto.Topodata;
import java.util.List;
import java.util.UUID;
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
}
