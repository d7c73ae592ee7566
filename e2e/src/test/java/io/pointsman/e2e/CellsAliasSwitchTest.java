package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.routingRuleLines;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.vitess.Vtctld;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cell alias in {@code --cells}, as vtctldclient takes it: the alias a real vtctld wrote
 * ({@code AddCellsAlias}) stands for its cells, and reads switch in them.
 */
@Timeout(600)
class CellsAliasSwitchTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void readsSwitchInTheCellsOfAnAliasVtctldWrote() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables();
        Vtctld vtctld = Vtctld.start(world.sandbox.etcdEndpoint(), world.paths.globalRoot())) {
      world.createMoveTables();
      String cell = world.sandbox.options().cell();
      vtctld.client("AddCellsAlias", "--cells", cell, "region1");
      assertThat(world.store().listCells()).as("an alias is not a cell").doesNotContain("region1");

      ActionResult r = world.workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-alias-" + UUID.randomUUID())
          .switchTraffic(SwitchTrafficRequest.of("commerce2customer", "customer")
              .withTabletTypes(List.of(TabletType.REPLICA)).withCells(List.of("region1")));

      assertThat(r.currentState()).contains("Replica switched in cells: " + cell);
      assertThat(routingRuleLines(vtctld.client("GetRoutingRules")))
          .contains("customer@replica -> customer.customer")
          .doesNotContain("customer@rdonly -> customer.customer");
      JsonNode srv = JSON.readTree(vtctld.client("GetSrvVSchema", cell));
      List<String> served = new ArrayList<>();
      srv.path("routing_rules").path("rules").forEach(rule -> served.add(rule.path("from_table").asText()));
      assertThat(served).as("the alias's cell serves the switched rules").contains("customer@replica");
    }
  }
}
