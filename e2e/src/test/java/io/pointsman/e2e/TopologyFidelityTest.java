package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.topo.TopoCodec;
import io.vitess.proto.Topodata;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import vschema.Vschema;
import vttime.Vttime;

/**
 * A MoveTables switch and Complete over topology records that carry every optional field Vitess 24
 * has and a field newer than it: afterwards each record differs from what it was only in the
 * fields the actions must change, and the newer field is still there. This is what storing the
 * records as Vitess's own messages, and writing each over the bytes it was read from, buys.
 */
@Timeout(600)
class TopologyFidelityTest {
  private static final Logger log = LoggerFactory.getLogger(TopologyFidelityTest.class);
  private static final int FUTURE_FIELD = 999;
  private static final ByteString FUTURE_VALUE = ByteString.copyFromUtf8("written by a newer Vitess");
  private static final String WF = "commerce2customer";
  private static final Vschema.KeyspaceRoutingRules KEYSPACE_RULES = Vschema.KeyspaceRoutingRules.newBuilder()
      .addRules(Vschema.KeyspaceRoutingRule.newBuilder().setFromKeyspace("legacy").setToKeyspace("commerce")).build();
  private static final Vschema.MirrorRules MIRROR_RULES = Vschema.MirrorRules.newBuilder()
      .addRules(Vschema.MirrorRule.newBuilder().setFromTable("commerce.product").setToTable("customer.product")
          .setPercent(2.5f)).build();

  @Test
  void switchAndCompleteChangeOnlyWhatTheyMustAndKeepEveryOtherField() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      Map<String, Message> before = new TreeMap<>();
      for (KeyValue kv : records(world)) {
        String key = kv.getKey().toString(StandardCharsets.UTF_8);
        Class<?> type = TopoCodec.recordTypeAt(key).orElseThrow();
        Message stored = TopoCodec.parse(key, kv.getValue().getBytes(), type);
        Message full = withFutureField(enrich(stored));
        world.etcd.getKVClient().put(kv.getKey(), ByteSequence.from(TopoCodec.bytes(full))).get(30, TimeUnit.SECONDS);
        before.put(key, full);
      }
      // the global records a SrvVSchema's keyspace routing and mirror rules are built from, as Vitess
      // builds them: rules of tables the MoveTables does not move, which its switch leaves alone
      for (Map.Entry<String, Message> global : Map.<String, Message>of(
          world.paths.keyspaceRoutingRules(), KEYSPACE_RULES, world.paths.mirrorRules(), MIRROR_RULES).entrySet()) {
        Message full = withFutureField(global.getValue());
        world.etcd.getKVClient().put(ByteSequence.from(global.getKey(), StandardCharsets.UTF_8),
            ByteSequence.from(TopoCodec.bytes(full))).get(30, TimeUnit.SECONDS);
        before.put(global.getKey(), full);
      }
      assertThat(before.keySet()).as("records rewritten")
          .anyMatch(k -> k.endsWith("/Keyspace")).anyMatch(k -> k.endsWith("/Shard"))
          .anyMatch(k -> k.endsWith("/SrvKeyspace")).anyMatch(k -> k.endsWith("/VSchema"))
          .anyMatch(k -> k.endsWith("/RoutingRules")).anyMatch(k -> k.endsWith("/SrvVSchema"));

      ActionResult switched = world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC))
          .switchTraffic(SwitchTrafficRequest.of(WF, "customer"));
      assertThat(switched.currentState()).isEqualTo(ALL_SWITCHED);
      Map<String, Message> afterSwitch = read(world, before);
      assertOnlyExpectedChanges(before, afterSwitch, "after SwitchTraffic");
      assertThat(afterSwitch).as("every record is still there after the switch").containsOnlyKeys(before.keySet());

      ActionResult done = world.workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION))
          .complete(CompleteRequest.of(WF, "customer"));
      assertThat(done.summary()).isEqualTo("Successfully completed the " + WF + " workflow in the customer keyspace");
      Map<String, Message> afterComplete = read(world, before);
      assertThat(before.keySet()).filteredOn(k -> !afterComplete.containsKey(k)).as("records Complete deleted")
          .allMatch(k -> k.endsWith("/RoutingRules"));
      assertOnlyExpectedChanges(before, afterComplete, "after Complete");
      List<String> removedTables = new ArrayList<>();
      before.forEach((key, was) -> {
        if (was instanceof Vschema.Keyspace ks && afterComplete.get(key) instanceof Vschema.Keyspace now) {
          ks.getTablesMap().keySet().stream().filter(t -> !now.containsTables(t)).forEach(t -> removedTables.add(key + " " + t));
        }
      });
      log.info("tables Complete removed from VSchemas: {}", removedTables);
      assertThat(removedTables).as("Complete drops the moved tables from the source VSchema, only them")
          .isNotEmpty().allMatch(t -> t.contains("/commerce/VSchema "));
    }
  }

  private static String id(String action) {
    return action + "-customer." + WF + "-" + UUID.randomUUID();
  }

  private static List<KeyValue> records(SwitchWorld world) throws Exception {
    return EtcdReads.under(world.etcd, world.paths.cellRootPrefix() + "/").stream().filter(kv -> TopoCodec.recordTypeAt(kv.getKey().toString(StandardCharsets.UTF_8)).isPresent()
            && !kv.getKey().toString(StandardCharsets.UTF_8).contains("/locks/")).toList();
  }

  private static Map<String, Message> read(SwitchWorld world, Map<String, Message> keys) throws Exception {
    Map<String, Message> out = new TreeMap<>();
    for (KeyValue kv : records(world)) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      if (keys.containsKey(key)) {
        out.put(key, TopoCodec.parse(key, kv.getValue().getBytes(), TopoCodec.recordTypeAt(key).orElseThrow()));
      }
    }
    return out;
  }

  private static void assertOnlyExpectedChanges(Map<String, Message> before, Map<String, Message> after, String when) {
    after.forEach((key, now) -> {
      assertThat(now.getUnknownFields().getField(FUTURE_FIELD).getLengthDelimitedList())
          .as("%s: the newer field of %s", when, key).containsExactly(FUTURE_VALUE);
      Message was = before.get(key);
      assertThat(normalize(now, was)).as("%s: %s apart from what the actions change", when, key)
          .isEqualTo(normalize(was, now));
    });
  }

  /**
   * The record without the fields SwitchTraffic and Complete change: the PRIMARY tablet controls
   * (denied tables move from target to source and go at Complete), the routing rules' targets
   * (deleted at Complete), the routing rules the write switch drops (the target-qualified ones) and
   * the VSchema tables Complete drops from the source: only the rules and tables that {@code other}
   * (the record's other state) has too are compared, each in full.
   */
  private static Message normalize(Message m, Message other) {
    Message ref = other;
    if (m instanceof Topodata.Shard s) {
      Topodata.Shard.Builder b = s.toBuilder().clearTabletControls();
      s.getTabletControlsList().stream().filter(tc -> tc.getTabletType() != Topodata.TabletType.PRIMARY)
          .forEach(b::addTabletControls);
      return b.build();
    }
    if (m instanceof Vschema.RoutingRules r && ref instanceof Vschema.RoutingRules refRules) {
      java.util.Set<String> both = new java.util.HashSet<>();
      refRules.getRulesList().forEach(rule -> both.add(rule.getFromTable()));
      Vschema.RoutingRules.Builder b = r.toBuilder().clearRules();
      r.getRulesList().stream().filter(rule -> both.contains(rule.getFromTable()))
          .forEach(rule -> b.addRules(rule.toBuilder().clearToTables()));
      return b.build();
    }
    if (m instanceof Vschema.Keyspace ks && ref instanceof Vschema.Keyspace refKs) {
      return keptTables(ks, refKs.getTablesMap().keySet());
    }
    if (m instanceof Vschema.SrvVSchema srv && ref instanceof Vschema.SrvVSchema refSrv) {
      Vschema.SrvVSchema.Builder b = srv.toBuilder().clearRoutingRules();
      b.clearKeyspaces();
      srv.getKeyspacesMap().forEach((name, ks) -> b.putKeyspaces(name,
          keptTables(ks, refSrv.getKeyspacesOrDefault(name, ks).getTablesMap().keySet())));
      return b.build();
    }
    return m;
  }

  /** The VSchema with only those of the given tables it still has (a table that changed shows). */
  private static Vschema.Keyspace keptTables(Vschema.Keyspace ks, java.util.Set<String> names) {
    Vschema.Keyspace.Builder b = ks.toBuilder().clearTables();
    ks.getTablesMap().forEach((name, t) -> {
      if (names.contains(name)) {
        b.putTables(name, t);
      }
    });
    return b.build();
  }

  // --- every optional field Vitess 24 has that the record lacks, as another Vitess tool might have set it ---

  private static Message enrich(Message m) {
    if (m instanceof Topodata.Keyspace k) {
      return k.toBuilder().setThrottlerConfig(throttler())
          .setVtorcState(io.vitess.proto.Vtorcdata.Keyspace.newBuilder().setDisableEmergencyReparent(true))
          .setSnapshotTime(Vttime.Time.newBuilder().setSeconds(1_700_000_000L).setNanoseconds(5))
          .build();
    }
    if (m instanceof Topodata.Shard s) {
      return s.toBuilder()
          .setVtorcState(io.vitess.proto.Vtorcdata.Shard.newBuilder().setDisableEmergencyReparent(true))
          .setPrimaryTermStartTime(Vttime.Time.newBuilder().setSeconds(1_700_000_001L).setNanoseconds(7))
          // a REPLICA control that lets reads through: MoveTables has no business with it
          .addTabletControls(Topodata.Shard.TabletControl.newBuilder().setTabletType(Topodata.TabletType.REPLICA)
              .addCells("zone9").setAllowReads(true))
          .build();
    }
    if (m instanceof Topodata.SrvKeyspace s) {
      return s.toBuilder().setThrottlerConfig(throttler()).build();
    }
    if (m instanceof Topodata.Tablet t) {
      return t.toBuilder().putTags("rack", "r1").setDefaultConnCollation(255)
          .setTabletStartTime(Vttime.Time.newBuilder().setSeconds(1_700_000_002L)).build();
    }
    if (m instanceof Vschema.Keyspace ks) {
      return enrichVSchema(ks);
    }
    if (m instanceof Vschema.RoutingRules r) {
      Vschema.RoutingRules.Builder b = r.toBuilder();
      b.getRulesBuilderList().forEach(rule -> rule.setUnknownFields(future()));
      return b.build();
    }
    if (m instanceof Vschema.SrvVSchema srv) {
      Vschema.SrvVSchema.Builder b = srv.toBuilder().clearKeyspaces()
          .setKeyspaceRoutingRules(KEYSPACE_RULES).setMirrorRules(MIRROR_RULES);
      srv.getKeyspacesMap().forEach((name, ks) -> b.putKeyspaces(name, enrichVSchema(ks)));
      return b.build();
    }
    return m;
  }

  private static Vschema.Keyspace enrichVSchema(Vschema.Keyspace ks) {
    Vschema.Keyspace.Builder b = ks.toBuilder()
        .setRequireExplicitRouting(true)
        .setForeignKeyMode(Vschema.Keyspace.ForeignKeyMode.unmanaged)
        .setMultiTenantSpec(Vschema.MultiTenantSpec.newBuilder().setTenantIdColumnName("tenant_id"))
        .clearTables();
    ks.getTablesMap().forEach((name, t) -> b.putTables(name, t.toBuilder()
        .addColumns(Vschema.Column.newBuilder().setName(name + "_id").setNullable(false).setCollationName("utf8mb4_bin"))
        .setColumnListAuthoritative(true)
        .setUnknownFields(future())
        .build()));
    return b.build();
  }

  private static Topodata.ThrottlerConfig throttler() {
    return Topodata.ThrottlerConfig.newBuilder().setEnabled(true).setThreshold(0.75).setCustomQuery("select 1").build();
  }

  private static UnknownFieldSet future() {
    return UnknownFieldSet.newBuilder().addField(FUTURE_FIELD,
        UnknownFieldSet.Field.newBuilder().addLengthDelimited(FUTURE_VALUE).build()).build();
  }

  private static Message withFutureField(Message m) {
    return m.toBuilder().setUnknownFields(UnknownFieldSet.newBuilder().mergeFrom(m.getUnknownFields())
        .mergeFrom(future()).build()).build();
  }
}
