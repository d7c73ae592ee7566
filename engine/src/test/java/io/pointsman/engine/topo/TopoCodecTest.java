package io.pointsman.engine.topo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.AutoIncrement;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.KeyspaceRoutingRule;
import io.pointsman.engine.topo.model.KeyspaceRoutingRules;
import io.pointsman.engine.topo.model.MirrorRule;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRule;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.ShardRoutingRule;
import io.pointsman.engine.topo.model.ShardRoutingRules;
import io.pointsman.engine.topo.model.ShardTabletControl;
import io.pointsman.engine.topo.model.SourceShard;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.TabletControl;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import io.vitess.proto.Topodata;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import vschema.Vschema;
import vttime.Vttime;

class TopoCodecTest {
  /** A field number no Vitess 24 topology message uses: stands for a field added after it. */
  static final int FUTURE_FIELD = 999;

  static final VSchema VSCHEMA = new VSchema(true,
      Map.of("hash", new Vindex("hash", Map.of(), null),
          "lookup", new Vindex("consistent_lookup_unique", Map.of("table", "lk", "from", "a", "to", "ksid"), "customer")),
      Map.of("customer", new VSchemaTable(null, List.of(new ColumnVindex("customer_id", "hash", List.of())),
              new AutoIncrement("customer_id", "customer_seq"), null),
          "corder", new VSchemaTable(null, List.of(new ColumnVindex(null, "lookup", List.of("a", "b"))), null, null),
          "customer_seq", new VSchemaTable("sequence", List.of(), null, "80")));

  static final Shard SHARD = new Shard(new TabletAlias("zone1", 200), "2024-05-01T10:00:00.123456789Z",
      KeyRange.ofShard("40-80"), List.of(new SourceShard(3, "commerce", "0", KeyRange.ofShard("-80"), List.of("t"))),
      List.of(new TabletControl(TabletType.PRIMARY, List.of(), List.of("customer", "corder"), false, false),
          new TabletControl(TabletType.REPLICA, List.of("zone1"), List.of("x"), true, true)),
      true);

  static final Tablet TABLET = new Tablet(new TabletAlias("zone1", 4_000_000_000L), "localhost",
      Map.of("vt", 15100, "grpc", 16100), "commerce", "-80", KeyRange.ofShard("-80"), TabletType.PRIMARY,
      "vt_other", "127.0.0.1", 17100);

  static final SrvKeyspace SRV_KEYSPACE = new SrvKeyspace(List.of(
      new KeyspacePartition(TabletType.PRIMARY, List.of(new ShardReference("-80", KeyRange.ofShard("-80")),
          new ShardReference("80-", KeyRange.ofShard("80-"))),
          List.of(new ShardTabletControl("80-", KeyRange.ofShard("80-"), true))),
      new KeyspacePartition(TabletType.REPLICA, List.of(new ShardReference("0", null)), List.of())));

  static final RoutingRules RULES = new RoutingRules(List.of(
      new RoutingRule("customer", List.of("commerce.customer")),
      new RoutingRule("customer@replica", List.of("commerce.customer"))));

  static final ShardRoutingRules SHARD_RULES =
      new ShardRoutingRules(List.of(new ShardRoutingRule("commerce", "customer", "-80")));

  private static final MirrorRules MIRROR_RULES = new MirrorRules(List.of(
      new MirrorRule("commerce.customer@replica", "customer.customer", 12.5f),
      new MirrorRule("commerce.customer", "customer.customer", 1)));
  private static final KeyspaceRoutingRules KEYSPACE_RULES =
      new KeyspaceRoutingRules(List.of(new KeyspaceRoutingRule("source", "target")));

  static Stream<Arguments> everyRecordType() {
    return Stream.of(
        Arguments.of(Keyspace.class, Keyspace.normal()),
        Arguments.of(Keyspace.class, new Keyspace("SNAPSHOT", "commerce", "semi_sync", "_vt_x")),
        Arguments.of(Shard.class, SHARD),
        Arguments.of(Shard.class, Shard.of(KeyRange.FULL, null, false)),
        Arguments.of(VSchema.class, VSCHEMA),
        Arguments.of(RoutingRules.class, RULES),
        Arguments.of(ShardRoutingRules.class, SHARD_RULES),
        Arguments.of(CellInfo.class, new CellInfo("127.0.0.1:2379", "/vitess/zone1")),
        Arguments.of(SrvKeyspace.class, SRV_KEYSPACE),
        Arguments.of(SrvVSchema.class, new SrvVSchema(Map.of("customer", VSCHEMA), RULES, SHARD_RULES)),
        Arguments.of(MirrorRules.class, MIRROR_RULES),
        Arguments.of(KeyspaceRoutingRules.class, KEYSPACE_RULES),
        Arguments.of(SrvVSchema.class, new SrvVSchema(Map.of("customer", VSCHEMA), RULES, SHARD_RULES,
            KEYSPACE_RULES, MIRROR_RULES)),
        Arguments.of(Tablet.class, TABLET),
        Arguments.of(Tablet.class, new Tablet(new TabletAlias("zone1", 1), "h", Map.of(), "ks", "0", KeyRange.FULL,
            TabletType.RDONLY, null, null, 0)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("everyRecordType")
  <T> void eachRecordTypeRoundTripsThroughItsVitessMessage(Class<T> type, T record) {
    byte[] bytes = TopoCodec.encode("k", record, null, type);
    assertThat(TopoCodec.decode("k", bytes, type)).isEqualTo(record);
    // encoding again over what was written changes nothing, so an unchanged record is not rewritten differently
    assertThat(TopoCodec.encode("k", record, bytes, type)).isEqualTo(bytes);
  }

  @Test
  void recordsAreTheVitessMessagesTheirKeysCallFor() {
    assertThat(TopoCodec.messageName(Keyspace.class)).isEqualTo("topodata.Keyspace");
    assertThat(TopoCodec.messageName(Shard.class)).isEqualTo("topodata.Shard");
    assertThat(TopoCodec.messageName(SrvKeyspace.class)).isEqualTo("topodata.SrvKeyspace");
    assertThat(TopoCodec.messageName(Tablet.class)).isEqualTo("topodata.Tablet");
    assertThat(TopoCodec.messageName(CellInfo.class)).isEqualTo("topodata.CellInfo");
    assertThat(TopoCodec.messageName(VSchema.class)).isEqualTo("vschema.Keyspace");
    assertThat(TopoCodec.messageName(MirrorRules.class)).isEqualTo("vschema.MirrorRules");
    assertThat(TopoCodec.messageName(KeyspaceRoutingRules.class)).isEqualTo("vschema.KeyspaceRoutingRules");
    assertThat(TopoCodec.recordTypeAt("/vitess/global/MirrorRules")).contains(MirrorRules.class);
    assertThat(TopoCodec.recordTypeAt("/vitess/global/routing_rules/keyspace/Rules"))
        .contains(KeyspaceRoutingRules.class);
    assertThat(TopoCodec.messageName(RoutingRules.class)).isEqualTo("vschema.RoutingRules");
    assertThat(TopoCodec.messageName(ShardRoutingRules.class)).isEqualTo("vschema.ShardRoutingRules");
    assertThat(TopoCodec.messageName(SrvVSchema.class)).isEqualTo("vschema.SrvVSchema");
  }

  /** The codec maps tablet types by number, so pointsman's enum must list Vitess's in its order. */
  @Test
  void tabletTypesAreVitessesByNameAndNumber() {
    List<String> vitess = Arrays.stream(Topodata.TabletType.values())
        .filter(t -> t != Topodata.TabletType.UNRECOGNIZED)
        .map(t -> t.getNumber() + " " + t.name()).toList();
    List<String> ours = Arrays.stream(TabletType.values()).map(t -> t.ordinal() + " " + t.name()).toList();
    assertThat(ours).isEqualTo(vitess);
  }

  @Test
  void shardIsWrittenWithVitessFieldTypes() throws Exception {
    Topodata.Shard m = Topodata.Shard.parseFrom(TopoCodec.encode("k", SHARD, null, Shard.class));
    assertThat(m.getPrimaryAlias().getCell()).isEqualTo("zone1");
    assertThat(m.getPrimaryAlias().getUid()).isEqualTo(200);
    assertThat(m.getKeyRange().getStart()).isEqualTo(ByteString.copyFrom(new byte[] {0x40}));
    assertThat(m.getKeyRange().getEnd()).isEqualTo(ByteString.copyFrom(new byte[] {(byte) 0x80}));
    Instant start = Instant.parse(SHARD.primaryTermStartTime());
    assertThat(m.getPrimaryTermStartTime()).isEqualTo(Vttime.Time.newBuilder()
        .setSeconds(start.getEpochSecond()).setNanoseconds(start.getNano()).build());
    assertThat(m.getTabletControls(0).getTabletType()).isEqualTo(Topodata.TabletType.PRIMARY);
    assertThat(m.getTabletControls(0).getDeniedTablesList()).containsExactly("customer", "corder");
    assertThat(m.getIsPrimaryServing()).isTrue();
    // an unsharded shard's key range is absent, as Vitess leaves it
    assertThat(Topodata.Shard.parseFrom(TopoCodec.encode("k", Shard.of(KeyRange.FULL, null, true), null, Shard.class))
        .hasKeyRange()).isFalse();
  }

  @Test
  void uidAboveTwoToTheThirtyOneIsUnsigned() throws Exception {
    Topodata.Tablet m = Topodata.Tablet.parseFrom(TopoCodec.encode("k", TABLET, null, Tablet.class));
    assertThat(Integer.toUnsignedLong(m.getAlias().getUid())).isEqualTo(4_000_000_000L);
    assertThat(m.getPortMapMap()).containsEntry("grpc", 16100);
  }

  /** One case of read-modify-write over a stored message the model holds only in part. */
  record MergeCase<T>(String name, Class<T> type, Message stored, UnaryOperator<T> change,
      List<String> keptFields) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<MergeCase<?>> mergeCases() {
    Topodata.Shard shard = Topodata.Shard.newBuilder()
        .setPrimaryAlias(Topodata.TabletAlias.newBuilder().setCell("zone1").setUid(100))
        .addTabletControls(Topodata.Shard.TabletControl.newBuilder().setTabletType(Topodata.TabletType.REPLICA)
            .addDeniedTables("a").setAllowReads(true))
        .setIsPrimaryServing(true)
        .build();
    Topodata.Keyspace keyspace = Topodata.Keyspace.newBuilder().setDurabilityPolicy("none")
        .setSnapshotTime(Vttime.Time.newBuilder().setSeconds(77))
        .setThrottlerConfig(Topodata.ThrottlerConfig.newBuilder().setEnabled(true).setThreshold(3))
        .build();
    Vschema.Keyspace vschema = Vschema.Keyspace.newBuilder().setSharded(true)
        .setRequireExplicitRouting(true).setForeignKeyMode(Vschema.Keyspace.ForeignKeyMode.managed)
        .putTables("customer", Vschema.Table.newBuilder().setColumnListAuthoritative(true).setSource("src.t")
            .addColumns(Vschema.Column.newBuilder().setName("id").setNullable(false))
            .addColumnVindexes(Vschema.ColumnVindex.newBuilder().setColumn("id").setName("hash")).build())
        .putVindexes("hash", Vschema.Vindex.newBuilder().setType("hash").build())
        .build();
    Vschema.SrvVSchema srvVSchema = Vschema.SrvVSchema.newBuilder().putKeyspaces("customer", vschema)
        .setKeyspaceRoutingRules(Vschema.KeyspaceRoutingRules.newBuilder().addRules(
            Vschema.KeyspaceRoutingRule.newBuilder().setFromKeyspace("a").setToKeyspace("b")))
        .setMirrorRules(Vschema.MirrorRules.newBuilder().addRules(
            Vschema.MirrorRule.newBuilder().setFromTable("t").setToTable("ks.t").setPercent(5)))
        .build();
    Topodata.SrvKeyspace srvKeyspace = Topodata.SrvKeyspace.newBuilder()
        .addPartitions(Topodata.SrvKeyspace.KeyspacePartition.newBuilder().setServedType(Topodata.TabletType.PRIMARY)
            .addShardReferences(Topodata.ShardReference.newBuilder().setName("0")))
        .setThrottlerConfig(Topodata.ThrottlerConfig.newBuilder().setEnabled(true))
        .build();
    Topodata.Tablet tablet = Topodata.Tablet.newBuilder()
        .setAlias(Topodata.TabletAlias.newBuilder().setCell("zone1").setUid(100)).setKeyspace("ks").setShard("0")
        .setType(Topodata.TabletType.REPLICA).putTags("rack", "r1").setDefaultConnCollation(45)
        .setTabletStartTime(Vttime.Time.newBuilder().setSeconds(5))
        .build();
    return Stream.of(
        new MergeCase<>("Shard", Shard.class, shard,
            s -> s.withDeniedTables(TabletType.REPLICA, List.of("b"), false).withPrimaryServing(false),
            List.of("tablet_controls.allow_reads")),
        new MergeCase<>("Keyspace", Keyspace.class, keyspace,
            k -> new Keyspace(k.keyspaceType(), k.baseKeyspace(), "semi_sync", k.sidecarDbName()),
            List.of("snapshot_time", "throttler_config")),
        new MergeCase<>("VSchema", VSchema.class, vschema,
            v -> new VSchema(v.sharded(), v.vindexes(), Map.of("customer", v.tables().get("customer"),
                "corder", VSchemaTable.plain())),
            List.of("require_explicit_routing", "foreign_key_mode", "tables.columns",
                "tables.column_list_authoritative", "tables.source")),
        new MergeCase<>("SrvVSchema", SrvVSchema.class, srvVSchema,
            s -> s.withRoutingRules(RULES),
            List.of("keyspace_routing_rules", "mirror_rules", "keyspaces.tables.columns")),
        new MergeCase<>("SrvKeyspace", SrvKeyspace.class, srvKeyspace,
            s -> SRV_KEYSPACE, List.of("throttler_config")),
        new MergeCase<>("Tablet", Tablet.class, tablet,
            t -> new Tablet(t.alias(), t.hostname(), t.portMap(), t.keyspace(), t.shard(), t.keyRange(),
                TabletType.RDONLY, t.dbNameOverride(), t.mysqlHostname(), t.mysqlPort()),
            List.of("tags", "default_conn_collation", "tablet_start_time")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mergeCases")
  <T> void aRewriteKeepsWhatTheModelLacksAndFieldsNewerThanVitess24(MergeCase<T> c) throws Exception {
    Message stored = withFutureField(c.stored());
    byte[] before = TopoCodec.bytes(stored);
    T read = TopoCodec.decode("k", before, c.type());
    T changed = c.change().apply(read);
    assertThat(changed).as("the case changes a modelled field").isNotEqualTo(read);

    byte[] after = TopoCodec.encode("k", changed, before, c.type());

    assertThat(TopoCodec.decode("k", after, c.type())).isEqualTo(changed);
    Message rewritten = TopoCodec.parse("k", after, c.type());
    assertThat(rewritten.getUnknownFields().hasField(FUTURE_FIELD)).as("unknown field kept").isTrue();
    assertThat(rewritten.getUnknownFields().getField(FUTURE_FIELD).getLengthDelimitedList())
        .containsExactly(ByteString.copyFromUtf8("from a newer Vitess"));
    for (String path : c.keptFields()) {
      assertThat(valuesAt(rewritten, path)).as(path).isNotEmpty().isEqualTo(valuesAt(stored, path));
    }
  }

  @Test
  void vschemaTablesAndRulesAreMatchedByNameSoEachKeepsItsOwnUnmodelledFields() {
    Vschema.RoutingRules stored = Vschema.RoutingRules.newBuilder()
        .addRules(withFutureField(Vschema.RoutingRule.newBuilder().setFromTable("b").addToTables("x.b").build()))
        .addRules(Vschema.RoutingRule.newBuilder().setFromTable("a").addToTables("x.a"))
        .build();
    RoutingRules changed = new RoutingRules(List.of(new RoutingRule("a", List.of("y.a")),
        new RoutingRule("b", List.of("y.b")), new RoutingRule("c", List.of("y.c"))));
    Vschema.RoutingRules out = TopoCodec.parse("k",
        TopoCodec.encode("k", changed, TopoCodec.bytes(stored), RoutingRules.class), RoutingRules.class);
    assertThat(out.getRulesList()).extracting(Vschema.RoutingRule::getFromTable).containsExactly("a", "b", "c");
    assertThat(out.getRules(1).getUnknownFields().hasField(FUTURE_FIELD)).isTrue();
    assertThat(out.getRules(0).getUnknownFields().asMap()).isEmpty();
    assertThat(out.getRules(2).getUnknownFields().asMap()).isEmpty();
  }

  /**
   * Given what the base decodes to, a SrvVSchema write keeps the base's keyspace entries when the
   * value's keyspaces are the same, and gives exactly what a write without that knowledge gives;
   * when they differ, the value's keyspaces are written.
   */
  @Test
  void aSrvVSchemaWrittenOverAKnownBaseKeepsUnchangedKeyspacesAndWritesChangedOnes() {
    Vschema.SrvVSchema stored = Vschema.SrvVSchema.newBuilder()
        .putKeyspaces("customer", withFutureField(Vschema.Keyspace.newBuilder().setSharded(true)
            .putTables("t", Vschema.Table.newBuilder().setColumnListAuthoritative(true).build()).build()))
        .putKeyspaces("commerce", Vschema.Keyspace.getDefaultInstance())
        .build();
    byte[] bytes = TopoCodec.bytes(stored);
    TopoCodec.Decoded<SrvVSchema> read = TopoCodec.read("k", bytes, SrvVSchema.class);

    SrvVSchema rulesOnly = read.value().withRoutingRules(RULES);
    byte[] known = TopoCodec.encode("k", rulesOnly, read.message(), read.value(), SrvVSchema.class).bytes();
    assertThat(known).isEqualTo(TopoCodec.encode("k", rulesOnly, bytes, SrvVSchema.class));
    Vschema.SrvVSchema out = TopoCodec.parse("k", known, SrvVSchema.class);
    assertThat(out.getKeyspacesMap()).isEqualTo(stored.getKeyspacesMap());
    assertThat(TopoCodec.decode("k", known, SrvVSchema.class)).isEqualTo(rulesOnly);

    Map<String, VSchema> keyspaces = new java.util.TreeMap<>(read.value().keyspaces());
    keyspaces.put("commerce", VSCHEMA);
    SrvVSchema changed = new SrvVSchema(keyspaces, RULES, SHARD_RULES);
    byte[] written = TopoCodec.encode("k", changed, read.message(), read.value(), SrvVSchema.class).bytes();
    assertThat(TopoCodec.decode("k", written, SrvVSchema.class)).isEqualTo(changed);
    Vschema.SrvVSchema rewritten = TopoCodec.parse("k", written, SrvVSchema.class);
    assertThat(rewritten.getKeyspacesOrThrow("customer").getUnknownFields().hasField(FUTURE_FIELD)).as("the unchanged keyspace keeps its unknown field").isTrue();
  }

  /** A rule the model holds as stored is kept as stored, unknown fields and all; a changed one is rewritten. */
  @Test
  void routingRulesWrittenOverTheirBaseKeepEachUnchangedRuleAsStored() {
    Vschema.RoutingRule kept = withFutureField(Vschema.RoutingRule.newBuilder().setFromTable("a")
        .addToTables("x.a").build());
    Vschema.RoutingRules stored = Vschema.RoutingRules.newBuilder().addRules(kept)
        .addRules(withFutureField(Vschema.RoutingRule.newBuilder().setFromTable("b").addToTables("x.b").build()))
        .build();
    RoutingRules changed = new RoutingRules(List.of(new RoutingRule("a", List.of("x.a")),
        new RoutingRule("b", List.of("y.b"))));
    Vschema.RoutingRules out = TopoCodec.parse("k",
        TopoCodec.encode("k", changed, TopoCodec.bytes(stored), RoutingRules.class), RoutingRules.class);
    assertThat(out.getRules(0)).isEqualTo(kept);
    assertThat(out.getRules(1).getToTablesList()).containsExactly("y.b");
    assertThat(out.getRules(1).getUnknownFields().hasField(FUTURE_FIELD)).isTrue();
  }

  @Test
  void jsonOfTheOldLayoutIsRefusedNamingTheKeyAndTheMessage() {
    byte[] json = "{\"key_range\":{\"start\":\"80\"},\"is_primary_serving\":true}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> TopoCodec.decode("/vitess/global/keyspaces/c/shards/80-/Shard", json, Shard.class))
        .isInstanceOf(PointsmanException.class)
        .hasMessageStartingWith("record at /vitess/global/keyspaces/c/shards/80-/Shard is not a valid topodata.Shard: ")
        .hasMessageContaining("JSON");
    byte[] list = "[]".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> TopoCodec.decode("/r", list, RoutingRules.class))
        .hasMessageStartingWith("record at /r is not a valid vschema.RoutingRules: ");
  }

  @Test
  void aGroupAnywhereIsRefusedAsNoVitessRecordHasOne() {
    // field 2 (key_range) holding field 15 as a group start: parses, but is no Vitess record
    byte[] nested = {0x12, 0x02, 0x7b, 0x7c};
    assertThatThrownBy(() -> TopoCodec.decode("/s", nested, Shard.class))
        .isInstanceOf(PointsmanException.class)
        .hasMessageContaining("is not a valid topodata.Shard: it holds a group at topodata.Shard.key_range");
  }

  @Test
  void aGroupInAnyElementOfARepeatedFieldIsRefused() {
    // rules[0] = {from_table: "x"}; rules[1] = {from_table: "a", field 15 as an empty group}
    byte[] rules = {0x0a, 0x03, 0x0a, 0x01, 'x', 0x0a, 0x05, 0x0a, 0x01, 'a', 0x7b, 0x7c};
    assertThatThrownBy(() -> TopoCodec.decode("/r", rules, RoutingRules.class))
        .isInstanceOf(PointsmanException.class)
        .hasMessageContaining("is not a valid vschema.RoutingRules: it holds a group at vschema.RoutingRules.rules");
  }

  @Test
  void aGroupInAMapValueIsRefused() {
    // keyspaces["k"] = a vschema.Keyspace holding field 15 as an empty group
    byte[] srv = {0x0a, 0x07, 0x0a, 0x01, 'k', 0x12, 0x02, 0x7b, 0x7c};
    assertThatThrownBy(() -> TopoCodec.decode("/v", srv, SrvVSchema.class))
        .isInstanceOf(PointsmanException.class)
        .hasMessageContaining("is not a valid vschema.SrvVSchema: it holds a group at vschema.SrvVSchema.keyspaces.value");
  }

  @Test
  void aGroupsTagInsideAStringIsText() {
    // '{' and '|' are the start and end tags of a group numbered 15: inside a name they are text
    RoutingRules braces = new RoutingRules(List.of(new RoutingRule("t{|}", List.of("ks.t{|}"))));
    byte[] bytes = TopoCodec.encode("/r", braces, null, RoutingRules.class);
    assertThat(TopoCodec.decode("/r", bytes, RoutingRules.class)).isEqualTo(braces);
    SrvVSchema srv = new SrvVSchema(Map.of("k{|}", new VSchema(false, Map.of(), Map.of())), braces,
        ShardRoutingRules.EMPTY, KeyspaceRoutingRules.EMPTY, MirrorRules.EMPTY);
    byte[] served = TopoCodec.encode("/v", srv, null, SrvVSchema.class);
    assertThat(TopoCodec.decode("/v", served, SrvVSchema.class).routingRules()).isEqualTo(braces);
  }

  @Test
  void aGroupInAnUnknownLengthDelimitedFieldIsNotLookedInto() {
    // field 20 of a Shard, unknown to it, holding bytes that would read as an empty group 15: a newer
    // submessage or plain bytes, kept as they are
    byte[] unknown = {(byte) 0xa2, 0x01, 0x02, 0x7b, 0x7c};
    byte[] known = TopoCodec.encode("k", SHARD, null, Shard.class);
    byte[] both = Arrays.copyOf(known, known.length + unknown.length);
    System.arraycopy(unknown, 0, both, known.length, unknown.length);

    assertThat(TopoCodec.decode("/s", both, Shard.class)).as("the known fields, read past the unknown one")
        .isEqualTo(TopoCodec.decode("/s", known, Shard.class));
    assertThat(TopoCodec.decode("/s", unknown, Shard.class)).as("the unknown field alone")
        .isEqualTo(TopoCodec.decode("/s", new byte[0], Shard.class));
  }

  @Test
  void garbageAndTruncatedValuesAreRefused() {
    byte[] garbage = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
    assertThatThrownBy(() -> TopoCodec.decode("/g", garbage, Keyspace.class))
        .isInstanceOf(PointsmanException.class).hasMessageStartingWith("record at /g is not a valid topodata.Keyspace: ");
    byte[] whole = TopoCodec.encode("k", SHARD, null, Shard.class);
    byte[] truncated = Arrays.copyOf(whole, whole.length - 3);
    assertThatThrownBy(() -> TopoCodec.decode("/t", truncated, Shard.class))
        .isInstanceOf(PointsmanException.class).hasMessageStartingWith("record at /t is not a valid topodata.Shard: ");
  }

  @Test
  void anEmptyValueIsTheDefaultMessageAsVitessWritesIt() {
    assertThat(TopoCodec.decode("k", new byte[0], Keyspace.class))
        .isEqualTo(new Keyspace("NORMAL", null, null, null));
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

  @SuppressWarnings("unchecked")
  static <M extends Message> M withFutureField(M m) {
    return (M) m.toBuilder().setUnknownFields(UnknownFieldSet.newBuilder().mergeFrom(m.getUnknownFields())
        .addField(FUTURE_FIELD, UnknownFieldSet.Field.newBuilder()
            .addLengthDelimited(ByteString.copyFromUtf8("from a newer Vitess")).build())
        .build()).build();
  }

  /** Every value at a dotted field path, descending through repeated and map fields. */
  static List<Object> valuesAt(Message m, String path) {
    String[] parts = path.split("\\.", 2);
    var field = m.getDescriptorForType().findFieldByName(parts[0]);
    if (field == null) {
      throw new IllegalArgumentException(m.getDescriptorForType().getFullName() + " has no field " + parts[0]);
    }
    List<Object> values;
    if (field.isMapField()) {
      values = ((List<?>) m.getField(field)).stream()
          .map(e -> ((Message) e).getField(field.getMessageType().findFieldByName("value"))).map(Object.class::cast).toList();
    } else if (field.isRepeated()) {
      values = ((List<?>) m.getField(field)).stream().map(Object.class::cast).toList();
    } else {
      values = m.hasField(field) ? List.of(m.getField(field)) : List.of();
    }
    if (parts.length == 1) {
      return values;
    }
    return values.stream().flatMap(v -> valuesAt((Message) v, parts[1]).stream()).toList();
  }
}
