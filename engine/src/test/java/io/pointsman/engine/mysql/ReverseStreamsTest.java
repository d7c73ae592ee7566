package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReverseStreamsTest {
  private static final Position TARGET_POS = Position.parse("MariaDB/0-2-99");

  @Test
  void reverseNamesFollowVitess() {
    assertThat(ReverseStreams.reverseName("commerce2customer")).isEqualTo("commerce2customer_reverse");
    assertThat(ReverseStreams.reverseName("commerce2customer_reverse")).isEqualTo("commerce2customer");
    assertThat(ReverseStreams.reverseName("_reverse")).isEqualTo("_reverse_reverse");
  }

  private static Stream forward(BinlogSource source, String cells, String types, String options) {
    return new Stream(7, "commerce2customer", source, Position.parse("MariaDB/0-1-5"), Position.ZERO,
        StreamState.STOPPED, "stopped for cutover", "vt_customer", cells, types, Instant.EPOCH, Instant.EPOCH,
        Instant.EPOCH, 10, WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, options, false);
  }

  private static ReverseStreams.Spec spec(Stream forward, VSchema sourceVSchema, KeyRange sourceRange) {
    return new ReverseStreams.Spec("customer", "-80", forward, TARGET_POS, "commerce", sourceRange, sourceVSchema,
        "vt_commerce", "zone2", "zone1");
  }

  @Test
  void anUnshardedSourceGetsPlainSelectsAndStartsStoppedAtTheTargetPosition() {
    BinlogSource fwd = new BinlogSource("commerce", "0", TabletType.REPLICA, null, List.of(),
        BinlogSource.Filter.of(new BinlogSource.Rule("customer", "select * from customer"),
            new BinlogSource.Rule("corder", "select * from corder")),
        BinlogSource.OnDdl.STOP, false, null, null, "UTC", "Europe/Paris");

    NewStream r = ReverseStreams.reverse(spec(forward(fwd, "", "", "{}"), new VSchema(false, Map.of(), Map.of()),
        KeyRange.FULL));

    assertThat(r.workflow()).isEqualTo("commerce2customer_reverse");
    assertThat(r.state()).isEqualTo(StreamState.STOPPED);
    assertThat(r.pos()).isEqualTo(TARGET_POS);
    assertThat(r.dbName()).isEqualTo("vt_commerce");
    assertThat(r.workflowType()).isEqualTo(WorkflowType.MOVE_TABLES);
    assertThat(r.source().keyspace()).isEqualTo("customer");
    assertThat(r.source().shard()).isEqualTo("-80");
    assertThat(r.source().tabletType()).isEqualTo(TabletType.REPLICA);
    assertThat(r.source().onDdl()).isEqualTo(BinlogSource.OnDdl.STOP);
    assertThat(r.source().sourceTimeZone()).isEqualTo("Europe/Paris");
    assertThat(r.source().targetTimeZone()).isEqualTo("UTC");
    assertThat(r.source().filter().rules()).containsExactly(
        new BinlogSource.Rule("customer", "select * from `customer`"),
        new BinlogSource.Rule("corder", "select * from `corder`"));
    assertThat(r.cell()).isEmpty();
    assertThat(r.options()).isEqualTo("{}");
  }

  @Test
  void aShardedSourceFiltersByThePrimaryVindexAndKeepsReferenceAndExcludeRules() {
    VSchema vschema = new VSchema(true, Map.of(), Map.of(
        "customer", new VSchemaTable(null, List.of(new ColumnVindex(null, "hash", List.of("customer_id"))), null, null),
        "corder", new VSchemaTable(null, List.of(new ColumnVindex("customer_id", "xxhash", null)), null, null),
        "countries", new VSchemaTable("reference", List.of(), null, null)));
    BinlogSource fwd = BinlogSource.of("commerce", "80-", BinlogSource.Filter.of(
        new BinlogSource.Rule("customer", "select * from customer"),
        new BinlogSource.Rule("corder", "select * from corder"),
        new BinlogSource.Rule("countries", "select * from countries"),
        new BinlogSource.Rule("audit", "exclude")));

    NewStream r = ReverseStreams.reverse(spec(forward(fwd, "", "", "{}"), vschema, KeyRange.ofShard("80-")));

    assertThat(r.source().filter().rules()).containsExactly(
        new BinlogSource.Rule("customer", "select * from `customer` where in_keyrange(`customer_id`, 'commerce.hash', '80-')"),
        new BinlogSource.Rule("corder", "select * from `corder` where in_keyrange(`customer_id`, 'commerce.xxhash', '80-')"),
        new BinlogSource.Rule("countries", "select * from `countries`"),
        new BinlogSource.Rule("audit", "exclude"));
  }

  @Test
  void aReshardWildcardRuleGetsTheSourceShardKeyRange() {
    BinlogSource fwd = BinlogSource.of("customer", "0", BinlogSource.Filter.of(new BinlogSource.Rule("/.*", "-80")));

    NewStream sharded = ReverseStreams.reverse(spec(forward(fwd, "", "", "{}"), new VSchema(true, Map.of(), Map.of()),
        KeyRange.ofShard("40-80")));
    NewStream unsharded = ReverseStreams.reverse(spec(forward(fwd, "", "", "{}"), new VSchema(false, Map.of(), Map.of()),
        KeyRange.FULL));

    assertThat(sharded.source().filter().rules()).containsExactly(new BinlogSource.Rule("/.*", "40-80"));
    assertThat(unsharded.source().filter().rules()).containsExactly(new BinlogSource.Rule("/.*", ""));
  }

  @Test
  void aShardedTableWithoutPrimaryVindexIsRefused() {
    VSchema vschema = new VSchema(true, Map.of(), Map.of("t", VSchemaTable.plain()));
    BinlogSource fwd = BinlogSource.of("commerce", "-80", BinlogSource.Filter.of(new BinlogSource.Rule("t", "select * from t")));

    assertThatThrownBy(() -> ReverseStreams.reverse(spec(forward(fwd, "", "", "{}"), vschema, KeyRange.ofShard("-80"))))
        .isInstanceOf(PointsmanException.class).hasMessageContaining("no primary vindex found for the t table");
  }

  @Test
  void cellsAndTabletTypesAreCopiedWithTheTargetCellSwappedForTheSourceCell() {
    BinlogSource fwd = BinlogSource.of("commerce", "0", BinlogSource.Filter.of(new BinlogSource.Rule("t", "select * from t")));
    VSchema unsharded = new VSchema(false, Map.of(), Map.of());

    NewStream swapped = ReverseStreams.reverse(spec(forward(fwd, "zone2,zone3", "replica", "{\"tenant\":1}"), unsharded,
        KeyRange.FULL));
    NewStream kept = ReverseStreams.reverse(spec(forward(fwd, "zone2,zone1", "", "{}"), unsharded, KeyRange.FULL));

    assertThat(swapped.cell()).isEqualTo("zone1,zone3");
    assertThat(swapped.tabletTypes()).isEqualTo("replica");
    assertThat(swapped.options()).isEqualTo("{\"tenant\":1}");
    assertThat(kept.cell()).isEqualTo("zone2,zone1");
  }
}
