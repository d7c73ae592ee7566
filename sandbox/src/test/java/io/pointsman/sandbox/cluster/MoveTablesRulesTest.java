package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.topo.model.RoutingRules;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class MoveTablesRulesTest {
  @Test
  void routesAllNineFormsToTheSourceAndKeepsOtherRules() {
    RoutingRules existing = RoutingRules.fromMap(Map.of("other.t", List.of("elsewhere.t")));
    Map<String, List<String>> rules = MoveTablesCreator.withRulesToSource(existing,
        new MoveTablesSpec("wf", "src", "dst", List.of("t"), true)).asMap();

    assertThat(rules).containsEntry("other.t", List.of("elsewhere.t"));
    assertThat(rules).hasSize(10);
    for (String form : List.of("t", "src.t", "dst.t", "t@replica", "src.t@replica", "dst.t@replica", "t@rdonly",
        "src.t@rdonly", "dst.t@rdonly")) {
      assertThat(rules).containsEntry(form, List.of("src.t"));
    }
  }

  @Test
  void copiedTablesLoseAutoIncrementForShardedTargets() {
    String ddl = "CREATE TABLE `customer` (\n  `customer_id` bigint(20) NOT NULL AUTO_INCREMENT,\n"
        + "  `email` varchar(128) DEFAULT NULL,\n  PRIMARY KEY (`customer_id`)\n"
        + ") ENGINE=InnoDB AUTO_INCREMENT=6 DEFAULT CHARSET=utf8mb4";
    assertThat(SchemaCopier.withoutAutoIncrement(ddl))
        .isEqualTo("CREATE TABLE `customer` (\n  `customer_id` bigint(20) NOT NULL,\n"
            + "  `email` varchar(128) DEFAULT NULL,\n  PRIMARY KEY (`customer_id`)\n"
            + ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4");
  }
}
