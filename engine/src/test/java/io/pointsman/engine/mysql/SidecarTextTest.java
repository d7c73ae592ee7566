package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.tablet.TabletProtos;
import io.pointsman.engine.topo.model.KeyRange;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SidecarTextTest {

  private static final BinlogSource MOVE_TABLES = BinlogSource.of("commerce", "0", BinlogSource.Filter.of(
      new BinlogSource.Rule("customer", "select * from customer")));

  @Test
  void aSourceIsWrittenAsOneLineOfTextFormatWithEnumNames() {
    BinlogSource s = new BinlogSource("commerce", "0", TabletType.REPLICA, null, List.of(),
        MOVE_TABLES.filter(), BinlogSource.OnDdl.EXEC, false, null, null, null, null);

    assertThat(SidecarText.encodeSource(s)).isEqualTo("keyspace: \"commerce\" shard: \"0\" tablet_type: REPLICA"
        + " filter { rules { match: \"customer\" filter: \"select * from customer\" } } on_ddl: EXEC");
  }

  @Test
  void defaultsAreLeftOutButTheFilterIsAlwaysWritten() {
    assertThat(SidecarText.encodeSource(BinlogSource.of("commerce", "0", null)))
        .isEqualTo("keyspace: \"commerce\" shard: \"0\" filter { }");
  }

  @Test
  void everyFieldOfASourceRoundTrips() {
    BinlogSource s = new BinlogSource("customer", "-80", TabletType.RDONLY, new KeyRange("40", "80"), List.of("a", "b"),
        BinlogSource.Filter.of(new BinlogSource.Rule("/.*", "-80"), new BinlogSource.Rule("t\u00e9l\u00e9", "exclude"),
            new BinlogSource.Rule("q", "select * from `q` where note = 'it''s \"x\"\\n'")),
        BinlogSource.OnDdl.EXEC_IGNORE, true, "ext", "cluster", "Europe/Paris", "UTC");

    String text = SidecarText.encodeSource(s);

    assertThat(text).doesNotContain("\n").contains("key_range { start: \"@\" end: \"\\200\" }");
    assertThat(SidecarText.decodeSource("row", text)).isEqualTo(s);
  }

  /** A rule's conversions and unique keys survive a copy (a migrated stream must convert as the original). */
  @Test
  void everyFieldOfARuleRoundTripsAsTextAndAsTheTabletsProto() {
    BinlogSource.Rule rule = new BinlogSource.Rule("t", "select * from t where in_keyrange('-80')",
        Map.of("status", "'a','b'"), Map.of("name", new BinlogSource.CharsetConversion("latin1", "utf8mb4")),
        "id", "id2", "id3", Map.of("flag", true), "PRIMARY");
    BinlogSource s = BinlogSource.of("commerce", "0", BinlogSource.Filter.of(rule));

    String text = SidecarText.encodeSource(s);

    assertThat(text).contains("convert_charset").contains("force_unique_key: \"PRIMARY\"");
    assertThat(SidecarText.decodeSource("row", text)).isEqualTo(s);
    assertThat(TabletProtos.source(TabletProtos.source(s))).isEqualTo(s);
  }

  @Test
  void readsTheSingleLineFormGoWrites() {
    // The form Vitess stores: Go's prototext, no space after ':' and ':' before '{'.
    BinlogSource s = SidecarText.decodeSource("row", "keyspace:\"commerce\" shard:\"0\""
        + " filter:{rules:{match:\"customer\" filter:\"select * from customer\"}} on_ddl:EXEC");

    assertThat(s).isEqualTo(new BinlogSource("commerce", "0", null, null, List.of(), MOVE_TABLES.filter(),
        BinlogSource.OnDdl.EXEC, false, null, null, null, null));
  }

  @Test
  void readsGoTextWithItsDoubledSpacesAndKeyRangeBytes() {
    // Go randomises between one and two spaces; key range bytes come as escapes.
    BinlogSource s = SidecarText.decodeSource("row", "keyspace:\"customer\"  shard:\"0\"  key_range:{end:\"\\x80\"}"
        + "  filter:{rules:{match:\"/.*\"  filter:\"-80\"}}  stop_after_copy:true");

    assertThat(s.keyRange()).isEqualTo(new KeyRange("", "80"));
    assertThat(s.filter().rules()).containsExactly(new BinlogSource.Rule("/.*", "-80"));
    assertThat(s.stopAfterCopy()).isTrue();
  }

  @Test
  void readsWhatGoWritesForEveryKindOfField() {
    // Printed by String() of the Go binlogdata.BinlogSource of vitess.io/vitess@v0.24.4 (a
    // throw-away program, not in this repository); that program's prototext.Unmarshal also read
    // back, field for field, the Java text of everyFieldOfASourceRoundTrips and of the journals here.
    String go = "keyspace:\"customer\" shard:\"-80\" tablet_type:REPLICA key_range:{end:\"\\x80\"}"
        + " filter:{rules:{match:\"/.*\" filter:\"-80\"} rules:{match:\"t\u00e9l\u00e9\" filter:\"exclude\"}}"
        + " stop_after_copy:true source_time_zone:\"Europe/Paris\" target_time_zone:\"UTC\"";

    assertThat(SidecarText.decodeSource("row", go)).isEqualTo(new BinlogSource("customer", "-80", TabletType.REPLICA,
        new KeyRange("", "80"), List.of(), BinlogSource.Filter.of(new BinlogSource.Rule("/.*", "-80"),
            new BinlogSource.Rule("t\u00e9l\u00e9", "exclude")),
        BinlogSource.OnDdl.IGNORE, true, null, null, "Europe/Paris", "UTC"));
  }

  @Test
  void fieldsOfANewerVitessAreSkipped() {
    BinlogSource s = SidecarText.decodeSource("row", "keyspace:\"commerce\" shard:\"0\" filter:{rules:{match:\"customer\""
        + " filter:\"select * from customer\" some_new_rule_option:true} new_filter_field:\"x\"}"
        + " a_new_message:{nested:{depth:2} tag:\"y\"} a_new_list:[1, 2] on_ddl:STOP");

    assertThat(s.filter()).isEqualTo(MOVE_TABLES.filter());
    assertThat(s.onDdl()).isEqualTo(BinlogSource.OnDdl.STOP);
  }

  @Test
  void aJournalRoundTripsAndCarriesVitessFieldNames() {
    Journal j = new Journal(42, Journal.MigrationType.SHARDS, List.of("/.*"), Position.parse("MariaDB/0-1-10"),
        List.of(new Journal.ShardGtid("customer", "-80", Position.parse("MariaDB/0-2-7")),
            new Journal.ShardGtid("customer", "80-", Position.parse("MariaDB/0-3-8"))),
        List.of(new Journal.KeyspaceShard("customer", "0")), List.of("wf2"));

    String text = SidecarText.encodeJournal(j);

    assertThat(text).isEqualTo("id: 42 migration_type: SHARDS tables: \"/.*\" local_position: \"MariaDB/0-1-10\""
        + " shard_gtids { keyspace: \"customer\" shard: \"-80\" gtid: \"MariaDB/0-2-7\" }"
        + " shard_gtids { keyspace: \"customer\" shard: \"80-\" gtid: \"MariaDB/0-3-8\" }"
        + " participants { keyspace: \"customer\" shard: \"0\" } source_workflows: \"wf2\"");
    assertThat(SidecarText.decodeJournal("row", text)).isEqualTo(j);
  }

  @Test
  void aMoveTablesJournalFromGoHasNoMigrationTypeAndReadsAsTables() {
    Journal j = SidecarText.decodeJournal("row", "id:6740760173349126720 tables:\"corder\" tables:\"customer\""
        + " local_position:\"MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-500\""
        + " shard_gtids:{keyspace:\"customer\" shard:\"0\" gtid:\"MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-40\"}"
        + " participants:{keyspace:\"commerce\" shard:\"0\"}");

    assertThat(j.id()).isEqualTo(6740760173349126720L);
    assertThat(j.migrationType()).isEqualTo(Journal.MigrationType.TABLES);
    assertThat(j.tables()).containsExactly("corder", "customer");
    assertThat(j.localPosition()).isEqualTo(Position.parse("MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-500"));
    assertThat(j.shardGtids()).containsExactly(new Journal.ShardGtid("customer", "0",
        Position.parse("MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-40")));
    assertThat(j.participants()).containsExactly(new Journal.KeyspaceShard("commerce", "0"));
    assertThat(SidecarText.encodeJournal(j)).doesNotContain("migration_type");
  }

  @Test
  void theJsonPointsmanUsedToWriteIsRefusedNamingTheRowAndTheMessageType() {
    String oldJson = "{\"keyspace\":\"commerce\",\"shard\":\"0\",\"filter\":{\"rules\":[{\"match\":\"customer\"}]}}";

    assertThatThrownBy(() -> SidecarText.decodeSource("_vt.vreplication id 3", oldJson))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageStartingWith("_vt.vreplication id 3: source is not a valid binlogdata.BinlogSource: ");
    assertThatThrownBy(() -> SidecarText.decodeJournal("_vt.resharding_journal id 9", "{\"id\":9}"))
        .isInstanceOf(PointsmanException.class)
        .hasMessageStartingWith("_vt.resharding_journal id 9: val is not a valid binlogdata.Journal: ");
  }

  @Test
  void garbageEmptyValuesWrongTypesAndBadPositionsAreRefused() {
    for (String bad : List.of("", "   ", "\u0000\u0001garbage", "keyspace:", "keyspace:42", "on_ddl:SOMETIMES",
        "key_range:{end:\"\\x8\"} keyspace:\"a", "tablet_type:99 keyspace:\"a\"")) {
      assertThatThrownBy(() -> SidecarText.decodeSource("_vt.vreplication id 3", bad)).as(bad)
          .isInstanceOf(PointsmanException.class)
          .hasMessageStartingWith("_vt.vreplication id 3: source is not a valid binlogdata.BinlogSource: ");
    }
    assertThatThrownBy(() -> SidecarText.decodeJournal("_vt.resharding_journal id 9", "id:9 local_position:\"0-1-2\""))
        .hasMessageContaining("val is not a valid binlogdata.Journal: local_position: ");
  }

  @Test
  void aSourceReadAgainIsTheSameValueAndABadOneFailsEveryTimeNamingTheRowOfThatRead() {
    String text = SidecarText.encodeSource(MOVE_TABLES);

    BinlogSource first = SidecarText.decodeSource("_vt.vreplication id 1", text);
    BinlogSource second = SidecarText.decodeSource("_vt.vreplication id 2", new String(text));

    assertThat(second).isSameAs(first).isEqualTo(MOVE_TABLES);
    assertThatThrownBy(() -> SidecarText.decodeSource("_vt.vreplication id 3", "keyspace:42"))
        .hasMessageStartingWith("_vt.vreplication id 3: source is not a valid binlogdata.BinlogSource: ");
    assertThatThrownBy(() -> SidecarText.decodeSource("_vt.vreplication id 4", "keyspace:42"))
        .hasMessageStartingWith("_vt.vreplication id 4: source is not a valid binlogdata.BinlogSource: ");
  }
}
