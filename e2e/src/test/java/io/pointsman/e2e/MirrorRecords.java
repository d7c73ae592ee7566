package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import io.vitess.proto.Topodata;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import vschema.Vschema;

/**
 * The records traffic mirroring touches in a sandbox's etcd, read and written as Vitess encodes
 * them: the global MirrorRules, each cell's served copy, and the target shards' PRIMARY tablet
 * control with its allow_reads. Shared by the sandbox tests of MirrorTraffic and of switching while
 * mirrored.
 */
final class MirrorRecords {
  /** The sandbox MoveTables' target shards. */
  static final List<String> TARGET_SHARDS = List.of("-80", "80-");

  private MirrorRecords() {}

  static Vschema.MirrorRule rule(String from, String to, float percent) {
    return Vschema.MirrorRule.newBuilder().setFromTable(from).setToTable(to).setPercent(percent).build();
  }

  static void put(SwitchWorld world, Vschema.MirrorRules rules) throws Exception {
    world.etcd.getKVClient().put(ByteSequence.from(world.paths.mirrorRules(), StandardCharsets.UTF_8),
        ByteSequence.from(rules.toByteArray())).get(30, TimeUnit.SECONDS);
  }

  /** The global MirrorRules record; fails when there is none. */
  static Vschema.MirrorRules global(SwitchWorld world) throws Exception {
    return Vschema.MirrorRules.parseFrom(get(world, world.paths.mirrorRules()));
  }

  /** Whether the global MirrorRules record exists (Vitess deletes it with its last rule). */
  static boolean globalExists(SwitchWorld world) throws Exception {
    return world.etcd.getKVClient().get(ByteSequence.from(world.paths.mirrorRules(), StandardCharsets.UTF_8))
        .get(30, TimeUnit.SECONDS).getCount() > 0;
  }

  /** Every cell's SrvVSchema serves exactly {@code expected}. */
  static void assertServed(SwitchWorld world, Vschema.MirrorRules expected) throws Exception {
    for (String cell : world.store().listCells()) {
      Vschema.SrvVSchema served = Vschema.SrvVSchema.parseFrom(get(world, world.store().keys().srvVSchema(cell).key()));
      assertThat(served.getMirrorRules()).as("mirror rules served in %s", cell).isEqualTo(expected);
    }
  }

  /** Sets allow_reads on each target shard's PRIMARY tablet control, as vtctldclient MirrorTraffic does. */
  static void allowTargetReads(SwitchWorld world) throws Exception {
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

  static Topodata.Shard.TabletControl primaryControl(SwitchWorld world, String shard) throws Exception {
    return Topodata.Shard.parseFrom(get(world, world.paths.shard("customer", shard))).getTabletControlsList().stream()
        .filter(tc -> tc.getTabletType() == Topodata.TabletType.PRIMARY).findFirst()
        .orElseThrow(() -> new AssertionError("customer/" + shard + " has no PRIMARY tablet control"));
  }

  /** Fails unless every target shard's PRIMARY control has allow_reads {@code allowed}. */
  static void assertTargetReadsAllowed(SwitchWorld world, boolean allowed, String when) throws Exception {
    for (String shard : TARGET_SHARDS) {
      assertThat(primaryControl(world, shard).getAllowReads())
          .as("allow_reads of customer/%s's PRIMARY control %s", shard, when).isEqualTo(allowed);
    }
  }

  static byte[] get(SwitchWorld world, String key) throws Exception {
    GetResponse r = world.etcd.getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8))
        .get(30, TimeUnit.SECONDS);
    assertThat(r.getKvs()).as("key %s", key).hasSize(1);
    return r.getKvs().get(0).getValue().getBytes();
  }
}
