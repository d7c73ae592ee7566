package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static io.pointsman.e2e.TrafficStates.READS_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.Client;
import io.pointsman.activities.show.TabletSidecarReads;
import io.pointsman.activities.show.WorkflowShow;
import io.pointsman.api.gtid.Position;
import io.pointsman.engine.primary.tablet.TabletPorts;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TopoPaths;
import java.time.Clock;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * pointsman's Show and Status against vtctldclient's {@code show} and {@code status --format json} on
 * one real Vitess 24 cluster with a vtctldclient-created MoveTables: the same JSON paths (every
 * field name, every shard-stream key), the same stream values, and the same Traffic State line in
 * each state vtctldclient's SwitchTraffic leaves — so a script that parses vtctldclient's output
 * parses pointsman's.
 */
@Timeout(900)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShowStatusInteropTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> MoveTablesCluster.start(WORKFLOW)).withoutWorker();

  private static VitessCluster cluster;
  private static WorkflowShow show;

  @BeforeAll
  static void moveTablesCreated() throws Exception {
    cluster = VITESS.cluster();
    Client etcd = VITESS.open("the etcd client", TestEtcd.client(cluster.env("POINTSMAN_VITESS_ETCD")));
    EtcdTopologyStore store = new EtcdTopologyStore(etcd, TopoPaths.defaults());
    TabletManagerClient client = VITESS.open("the tablet-manager client", new TabletManagerClient(TabletRpcOptions.DEFAULTS));
    TabletPorts ports = TabletPorts.create(store, client, Optional.empty());
    show = new WorkflowShow(store, new TabletSidecarReads(client, ports.primaries(), ports.streams()),
        Clock.systemUTC());
  }

  @Test
  @Order(1)
  void showHasVtctldsFieldsAndStreams() throws Exception {
    JsonNode vtctld = cluster.vtctldclientJson("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer",
        "show");
    JsonNode ours = JSON.readTree(WorkflowShow.json(show.show("customer", WORKFLOW, true)));

    assertThat(paths(ours)).isEqualTo(paths(vtctld));
    JsonNode theirs = vtctld.path("workflows").get(0);
    JsonNode mine = ours.path("workflows").get(0);
    for (String field : new String[] {"name", "source", "target", "workflow_type", "workflow_sub_type", "options"}) {
      assertThat(mine.path(field)).as(field).isEqualTo(theirs.path(field));
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = theirs.path("shard_streams").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode a = e.getValue().path("streams").get(0);
      JsonNode b = mine.path("shard_streams").path(e.getKey()).path("streams").get(0);
      // rows_copied is left to the path check: vtctld and pointsman read it one after the other from a
      // counter the stream keeps updating, and seen 2 vs 5 on the same stream a moment apart
      for (String field : new String[] {"id", "shard", "tablet", "binlog_source", "state", "db_name",
          "message", "tablet_types", "cells", "copy_states"}) {
        assertThat(b.path(field)).as(e.getKey() + " " + field).isEqualTo(a.path(field));
      }
      assertSameOrLater(e.getKey(), a.path("position").asText(), b.path("position").asText());
      assertThat(e.getValue().path("is_primary_serving")).isEqualTo(mine.path("shard_streams").path(e.getKey())
          .path("is_primary_serving"));
    }
  }

  @Test
  @Order(2)
  void statusHasVtctldsFieldsAndTrafficStateAcrossSwitches() throws Exception {
    assertSameStatus(NOT_SWITCHED);
    cluster.vtctldclient("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "SwitchTraffic",
        "--tablet-types", "replica");
    // whatever vtctld words it (this cluster has no RDONLY tablets), pointsman words it the same
    assertSameStatus(null);
    cluster.vtctldclient("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "SwitchTraffic",
        "--tablet-types", "rdonly");
    assertSameStatus(READS_SWITCHED);
    cluster.vtctldclient("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "SwitchTraffic",
        "--tablet-types", "primary");
    assertSameStatus(ALL_SWITCHED);
  }

  /** Status of both; {@code trafficState} is vtctld's expected line, or null to require only that both agree. */
  private static void assertSameStatus(String trafficState) throws Exception {
    JsonNode vtctld = cluster.vtctldclientJson("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer",
        "status", "--format", "json");
    JsonNode ours = JSON.readTree(WorkflowShow.json(show.status("customer", WORKFLOW)));
    if (trafficState != null) {
      assertThat(vtctld.path("traffic_state").asText()).isEqualTo(trafficState);
    }
    assertThat(ours.path("traffic_state").asText()).isEqualTo(vtctld.path("traffic_state").asText());
    assertThat(paths(ours)).isEqualTo(paths(vtctld));
    for (Iterator<Map.Entry<String, JsonNode>> it = vtctld.path("shard_streams").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode a = e.getValue().path("streams").get(0);
      JsonNode b = ours.path("shard_streams").path(e.getKey()).path("streams").get(0);
      for (String field : new String[] {"id", "tablet", "source_shard", "status"}) {
        assertThat(b.path(field)).as(e.getKey() + " " + field).isEqualTo(a.path(field));
      }
      assertSameOrLater(e.getKey(), a.path("position").asText(), b.path("position").asText());
    }
  }

  /**
   * Positions as vtctld prints them (the GTID set, no flavor prefix); pointsman reads after vtctld, and
   * the streams apply heartbeats meanwhile, so its position is the same or later.
   */
  private static void assertSameOrLater(String stream, String vtctlds, String ours) {
    assertThat(ours).as(stream + " position has no flavor prefix, as vtctld's").doesNotContain("/").isNotEmpty();
    String flavor = vtctlds.matches("[0-9]+-[0-9]+-[0-9]+(,[0-9]+-[0-9]+-[0-9]+)*") ? "MariaDB/" : "MySQL56/";
    assertThat(Position.parse(flavor + ours).atLeast(Position.parse(flavor + vtctlds)))
        .as(stream + " position " + ours + " at or after vtctld's " + vtctlds).isTrue();
  }

  /** Every path of the document: object keys joined by '.', array elements as []. */
  static TreeSet<String> paths(JsonNode node) {
    TreeSet<String> out = new TreeSet<>();
    collect("", node, out);
    return out;
  }

  private static void collect(String at, JsonNode node, TreeSet<String> out) {
    if (node.isObject()) {
      node.fields().forEachRemaining(e -> collect(at + "." + e.getKey(), e.getValue(), out));
      if (node.isEmpty()) {
        out.add(at + "{}");
      }
    } else if (node.isArray()) {
      out.add(at + "[]");
      node.forEach(e -> collect(at + "[]", e, out));
    } else {
      out.add(at);
    }
  }
}
