package io.pointsman.engine.topo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.engine.topo.model.AutoIncrement;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.RoutingRule;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.ShardRoutingRule;
import io.pointsman.engine.topo.model.ShardRoutingRules;
import io.pointsman.engine.topo.model.ShardTabletControl;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.TabletType;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopoCodecTest {

  private static JsonNode json(Object record) throws Exception {
    return TopoCodec.mapper().readTree(TopoCodec.encode(record));
  }

  private static <T> T roundTrip(T record) {
    @SuppressWarnings("unchecked")
    Class<T> type = (Class<T>) record.getClass();
    return TopoCodec.decode("k", TopoCodec.encode(record), type);
  }

  @Test
  void shardUsesVitessProtoFieldNames() throws Exception {
    Shard shard = Shard.of(KeyRange.ofShard("-80"), new TabletAlias("zone1", 200), true)
        .withDeniedTables(TabletType.PRIMARY, List.of("customer", "corder"), false);
    JsonNode j = json(shard);
    assertThat(j.get("primary_alias").get("cell").asText()).isEqualTo("zone1");
    assertThat(j.get("primary_alias").get("uid").asLong()).isEqualTo(200);
    assertThat(j.get("key_range").get("end").asText()).isEqualTo("80");
    assertThat(j.get("key_range").has("full")).as("derived getters are not fields").isFalse();
    assertThat(j.get("is_primary_serving").asBoolean()).isTrue();
    assertThat(j.get("tablet_controls").get(0).get("tablet_type").asText()).isEqualTo("PRIMARY");
    assertThat(j.get("tablet_controls").get(0).get("denied_tables")).hasSize(2);
    assertThat(roundTrip(shard)).isEqualTo(shard);
  }

  @Test
  void routingRulesUseFromTableAndToTables() throws Exception {
    RoutingRules rules = new RoutingRules(List.of(new RoutingRule("customer@replica", List.of("commerce.customer"))));
    JsonNode j = json(rules);
    assertThat(j.get("rules").get(0).get("from_table").asText()).isEqualTo("customer@replica");
    assertThat(j.get("rules").get(0).get("to_tables").get(0).asText()).isEqualTo("commerce.customer");
    assertThat(roundTrip(rules)).isEqualTo(rules);
  }

  @Test
  void srvKeyspaceUsesPartitionFieldNames() throws Exception {
    SrvKeyspace srv = new SrvKeyspace(List.of(new KeyspacePartition(TabletType.PRIMARY,
        List.of(new ShardReference("-80", KeyRange.ofShard("-80"))),
        List.of(new ShardTabletControl("80-", KeyRange.ofShard("80-"), true)))));
    JsonNode p = json(srv).get("partitions").get(0);
    assertThat(p.get("served_type").asText()).isEqualTo("PRIMARY");
    assertThat(p.get("shard_references").get(0).get("name").asText()).isEqualTo("-80");
    assertThat(p.get("shard_tablet_controls").get(0).get("query_service_disabled").asBoolean()).isTrue();
    assertThat(roundTrip(srv)).isEqualTo(srv);
  }

  @Test
  void tabletCarriesWhereItsMysqlListens() throws Exception {
    Tablet t = new Tablet(new TabletAlias("zone1", 100), "localhost", Map.of("vt", 15100), "commerce", "0",
        KeyRange.FULL, TabletType.PRIMARY, null, "127.0.0.1", 17100);
    JsonNode j = json(t);
    assertThat(j.get("mysql_hostname").asText()).isEqualTo("127.0.0.1");
    assertThat(j.get("mysql_port").asInt()).isEqualTo(17100);
    assertThat(j.get("port_map").get("vt").asInt()).isEqualTo(15100);
    assertThat(roundTrip(t)).isEqualTo(t);
    assertThat(t.dbName()).isEqualTo("vt_commerce");
  }

  @Test
  void everyOtherRecordRoundTrips() {
    VSchema vschema = new VSchema(true, Map.of("hash", new Vindex("hash", Map.of(), null)),
        Map.of("customer", new VSchemaTable(null, List.of(new ColumnVindex("customer_id", "hash", List.of())),
            new AutoIncrement("customer_id", "customer_seq"), null)));
    assertThat(roundTrip(vschema)).isEqualTo(vschema);
    assertThat(roundTrip(Keyspace.normal())).isEqualTo(Keyspace.normal());
    assertThat(roundTrip(new CellInfo("127.0.0.1:2379", "/vitess/zone1"))).isEqualTo(new CellInfo("127.0.0.1:2379", "/vitess/zone1"));
    ShardRoutingRules srr = new ShardRoutingRules(List.of(new ShardRoutingRule("commerce", "customer", "-80")));
    assertThat(roundTrip(srr)).isEqualTo(srr);
    SrvVSchema srv = new SrvVSchema(Map.of("customer", vschema), RoutingRules.EMPTY, ShardRoutingRules.EMPTY);
    assertThat(roundTrip(srv)).isEqualTo(srv);
  }

  @Test
  void readsFieldsItDoesNotKnowWithoutFailing() {
    byte[] withExtra = "{\"key_range\":{\"start\":\"80\"},\"is_primary_serving\":true,\"vtorc_state\":\"x\"}"
        .getBytes(StandardCharsets.UTF_8);
    Shard s = TopoCodec.decode("k", withExtra, Shard.class);
    assertThat(s.keyRange()).isEqualTo(new KeyRange("80", ""));
    assertThat(s.isPrimaryServing()).isTrue();
  }

  @Test
  void deniedTablesAddAndRemoveIdempotently() {
    Shard s = Shard.of(KeyRange.FULL, null, true);
    Shard denied = s.withDeniedTables(TabletType.PRIMARY, List.of("a", "b"), false)
        .withDeniedTables(TabletType.PRIMARY, List.of("b"), false);
    assertThat(denied.deniedTables(TabletType.PRIMARY)).containsExactly("a", "b");
    Shard allowed = denied.withDeniedTables(TabletType.PRIMARY, List.of("a", "b", "c"), true);
    assertThat(allowed.tabletControls()).isEmpty();
    assertThat(allowed).isEqualTo(s);
  }
}
