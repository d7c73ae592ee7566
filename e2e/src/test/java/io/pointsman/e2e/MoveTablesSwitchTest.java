package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.topo.model.RoutingRules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** SwitchTraffic of a MoveTables workflow on the sandbox, reaching the state Vitess reports. */
@Timeout(600)
class MoveTablesSwitchTest {
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().createMoveTables().build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @Test
  void switchTrafficMovesReadsAndWritesToTheTarget() {
    SwitchTrafficWorkflow wf = world().workflow(SwitchTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "customer", "commerce2customer"));
    ActionResult result = wf.switchTraffic(SwitchTrafficRequest.of("commerce2customer", "customer"));

    assertThat(result.summary()).isEqualTo("SwitchTraffic was successful for workflow customer.commerce2customer");
    assertThat(result.startState()).isEqualTo(NOT_SWITCHED);
    assertThat(result.currentState()).isEqualTo(ALL_SWITCHED);

    Map<String, List<String>> rules = world().store().getRequired(world().store().keys().routingRules()).value()
        .asMap();
    for (String t : List.of("customer", "corder")) {
      assertThat(rules.get(t)).containsExactly("customer." + t);
      assertThat(rules.get("commerce." + t)).containsExactly("customer." + t);
      assertThat(rules.get(t + "@replica")).containsExactly("customer." + t);
      assertThat(rules.get("commerce." + t + "@rdonly")).containsExactly("customer." + t);
      assertThat(rules).doesNotContainKey("customer." + t);
    }
    RoutingRules served = world().store().getRequired(world().store().keys().srvVSchema("zone1")).value()
        .routingRules();
    assertThat(served.asMap()).isEqualTo(rules);

    assertThat(world().store().getRequired(world().store().keys().shard("commerce", "0")).value()
        .deniedTables(TabletType.PRIMARY)).containsExactlyInAnyOrder("customer", "corder");
    for (String shard : List.of("-80", "80-")) {
      assertThat(world().store().getRequired(world().store().keys().shard("customer", shard)).value()
          .deniedTables(TabletType.PRIMARY)).isEmpty();
      PrimaryEndpoint target = world().services.primaries().resolve("customer", shard);
      assertThat(world().services.streams().read(target, "commerce2customer")).hasSize(1).allMatch(Stream::isFrozen);
    }
    PrimaryEndpoint source = world().services.primaries().resolve("commerce", "0");
    List<Stream> reverse = world().services.streams().read(source, "commerce2customer_reverse");
    assertThat(reverse).hasSize(2).allMatch(s -> s.state() == StreamState.RUNNING);
    assertThat(world().services.barrier().deniedTables(source)).containsExactlyInAnyOrder("customer", "corder");

    assertThat(wf.progress().steps()).extracting(s -> s.name()).containsSubsequence("acquireLocks", "canSwitch",
        "switchReads", "stopSourceWrites", "gatherSourcePositions", "waitForCatchup", "createReverseVReplication",
        "createJournals", "allowTargetWrites", "changeRouting", "startReverseVReplication",
        "freezeTargetVReplication", "releaseLocks");
    assertThat(wf.progress().steps()).allMatch(s -> s.status() == StepStatus.DONE);
    assertThat(wf.progress().locks()).isEmpty();
  }
}
