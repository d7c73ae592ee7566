package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
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
 * the workflow does not move stays, and every cell serves the global record.
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

      SwitchTrafficRequest reads = SwitchTrafficRequest.of(WF, "customer")
          .withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY));
      world.workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-reads-" + UUID.randomUUID()).switchTraffic(reads);
      Vschema.MirrorRules afterReads = Vschema.MirrorRules.newBuilder()
          .addRules(rule("commerce.customer", "customer.customer", 10)).addRules(UNRELATED).build();
      assertThat(Vschema.MirrorRules.parseFrom(get(world, world.paths.mirrorRules()))).isEqualTo(afterReads);
      assertServed(world, afterReads);

      ActionResult all = world.workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-" + UUID.randomUUID())
          .switchTraffic(SwitchTrafficRequest.of(WF, "customer"));
      assertThat(all.currentState()).isEqualTo(ALL_SWITCHED);
      Vschema.MirrorRules afterWrites = Vschema.MirrorRules.newBuilder().addRules(UNRELATED).build();
      assertThat(Vschema.MirrorRules.parseFrom(get(world, world.paths.mirrorRules()))).isEqualTo(afterWrites);
      assertServed(world, afterWrites);
    }
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
