package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.VSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class VReplicationStreamsTest {
  private static final Position START = Position.parse("MariaDB/0-1-100");

  private MySqlTestSupport db;
  private VReplicationStreams streams;
  private LockSet locks;

  @BeforeEach
  void setUp() throws Exception {
    db = new MySqlTestSupport();
    streams = new VReplicationStreams(db.pools, db.fence, db.schema);
    locks = db.lock(100);
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
  }

  private static BinlogSource source(String shard) {
    return new BinlogSource("commerce", shard, TabletType.REPLICA, KeyRange.ofShard("-80"), List.of(),
        BinlogSource.Filter.of(new BinlogSource.Rule("customer", "select * from customer")),
        BinlogSource.OnDdl.IGNORE, false, null, null, null, null);
  }

  private NewStream stream(String workflow, String shard) {
    return NewStream.stopped(workflow, source(shard), START, db.endpoint.dbName(), WorkflowType.MOVE_TABLES,
        WorkflowSubType.NONE);
  }

  private List<Integer> insert(NewStream... s) {
    return streams.insert(db.endpoint, List.of(s), locks);
  }

  @Test
  void insertedStreamsReadBackWithTheirSourceAndPositions() {
    List<Integer> ids = insert(stream("wf", "0"), stream("wf", "1"), stream("other", "0"));

    List<Stream> read = streams.read(db.endpoint, "wf");

    assertThat(read).extracting(Stream::id).containsExactly(ids.get(0), ids.get(1));
    Stream s = read.get(0);
    assertThat(s.workflow()).isEqualTo("wf");
    assertThat(s.source()).isEqualTo(source("0"));
    assertThat(s.pos()).isEqualTo(START);
    assertThat(s.stopPos()).isEqualTo(Position.ZERO);
    assertThat(s.state()).isEqualTo(StreamState.STOPPED);
    assertThat(s.message()).isEmpty();
    assertThat(s.dbName()).isEqualTo(db.endpoint.dbName());
    assertThat(s.workflowType()).isEqualTo(WorkflowType.MOVE_TABLES);
    assertThat(s.options()).isEqualTo("{}");
    assertThat(s.copyPending()).isFalse();
    assertThat(streams.read(db.endpoint, ids.get(2))).get().extracting(Stream::workflow).isEqualTo("other");
  }

  @Test
  void theSourceIsStoredAsVitessTextFormatBinlogSource() throws Exception {
    int id = insert(stream("wf", "0")).get(0);

    try (Connection c = MySqlTestSupport.client(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT source, pos, max_tps FROM " + db.endpoint.sidecarDb()
            + ".vreplication WHERE id = " + id)) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("keyspace: \"commerce\" shard: \"0\" tablet_type: REPLICA"
          + " key_range { end: \"\\200\" }"
          + " filter { rules { match: \"customer\" filter: \"select * from customer\" } }");
      assertThat(rs.getString(2)).isEqualTo("MariaDB/0-1-100");
      assertThat(rs.getLong(3)).isEqualTo(Long.MAX_VALUE);
    }
  }

  @Test
  void aSourceWithNonAsciiQuotesAndBackslashesIsStoredAsItsUtf8BytesAndReadsBack() throws Exception {
    BinlogSource odd = source("0").withRules(List.of(new BinlogSource.Rule("t\u00e9l\u00e9",
        "select * from `t\u00e9l\u00e9` where note = 'it''s \"x\"\\n \u2603 \uD83D\uDE00'")));
    int id = streams.insert(db.endpoint, List.of(NewStream.stopped("wf", odd, START, db.endpoint.dbName(),
        WorkflowType.MOVE_TABLES, WorkflowSubType.NONE)), locks).get(0);

    try (Connection c = MySqlTestSupport.client(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT HEX(source) FROM " + db.endpoint.sidecarDb()
            + ".vreplication WHERE id = " + id)) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo(java.util.HexFormat.of().withUpperCase()
          .formatHex(SidecarText.encodeSource(odd).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
    assertThat(streams.read(db.endpoint, id).orElseThrow().source()).isEqualTo(odd);
  }

  @Test
  void aSourceVitessWroteReadsBack() throws Exception {
    int id = insert(stream("wf", "0")).get(0);
    MySqlTestSupport.exec("UPDATE " + db.endpoint.sidecarDb() + ".vreplication SET source = 'keyspace:\"commerce\"'"
        + " ' shard:\"0\" filter:{rules:{match:\"customer\" filter:\"select * from customer\"}} on_ddl:EXEC'"
        + " WHERE id = " + id);

    BinlogSource s = streams.read(db.endpoint, id).orElseThrow().source();

    assertThat(s).isEqualTo(new BinlogSource("commerce", "0", null, null, List.of(),
        BinlogSource.Filter.of(new BinlogSource.Rule("customer", "select * from customer")),
        BinlogSource.OnDdl.EXEC, false, null, null, null, null));
  }

  @Test
  void aSourceThatIsNotTextFormatFailsTheReadNamingTheRowAndChangesNothing() throws Exception {
    List<Integer> ids = insert(stream("wf", "0"), stream("wf", "1"));
    String oldJson = "{\"keyspace\":\"commerce\",\"shard\":\"1\",\"filter\":{\"rules\":[{\"match\":\"customer\"}]}}";
    MySqlTestSupport.exec("UPDATE " + db.endpoint.sidecarDb() + ".vreplication SET source = '" + oldJson
        + "' WHERE id = " + ids.get(1));
    String before = rows();

    assertThatThrownBy(() -> streams.read(db.endpoint, "wf"))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageStartingWith(db.endpoint.sidecarDb() + ".vreplication id " + ids.get(1) + " (workflow wf) on "
            + db.endpoint + ": source is not a valid binlogdata.BinlogSource: ");
    assertThatThrownBy(() -> streams.read(db.endpoint, ids.get(1))).isInstanceOf(PointsmanException.class);
    assertThat(streams.read(db.endpoint, ids.get(0))).isPresent();
    assertThat(rows()).isEqualTo(before);
  }

  /** Every column of every row, to show a failed call left the table as it was. */
  private String rows() throws Exception {
    StringBuilder sb = new StringBuilder();
    try (Connection c = MySqlTestSupport.client(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM " + db.endpoint.sidecarDb() + ".vreplication ORDER BY id")) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        for (int i = 1; i <= n; i++) {
          sb.append(rs.getString(i)).append('|');
        }
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  @Test
  void stopStartAndFreezeAsVitessDoes() throws Exception {
    List<Integer> ids = insert(stream("wf", "0"), stream("wf", "1"));
    MySqlTestSupport.exec("UPDATE " + db.endpoint.sidecarDb() + ".vreplication SET stop_pos = 'MariaDB/0-1-200'");

    assertThat(streams.start(db.endpoint, "wf", locks)).isEqualTo(2);
    assertThat(streams.read(db.endpoint, "wf")).allSatisfy(s -> {
      assertThat(s.state()).isEqualTo(StreamState.RUNNING);
      assertThat(s.message()).isEmpty();
      assertThat(s.stopPos()).isEqualTo(Position.ZERO);
    });

    assertThat(streams.stop(db.endpoint, List.of(ids.get(1)), "for cutover", locks)).isEqualTo(1);
    assertThat(streams.read(db.endpoint, ids.get(1))).get().satisfies(s -> {
      assertThat(s.state()).isEqualTo(StreamState.STOPPED);
      assertThat(s.message()).isEqualTo("for cutover");
    });
    assertThat(streams.read(db.endpoint, ids.get(0))).get().extracting(Stream::state).isEqualTo(StreamState.RUNNING);

    assertThat(streams.stop(db.endpoint, "wf", "stopped for cutover", locks)).isEqualTo(2);
    assertThat(streams.stop(db.endpoint, "wf", "stopped for cutover", locks)).as("idempotent").isEqualTo(2);
    assertThat(streams.freeze(db.endpoint, "wf", locks)).isEqualTo(2);
    assertThat(streams.read(db.endpoint, "wf")).allSatisfy(s -> assertThat(s.isFrozen()).isTrue());
  }

  @Test
  void aStaleTokensStreamUpdateIsRejectedAndChangesNothing() {
    int id = insert(stream("wf", "0")).get(0);
    streams.start(db.endpoint, "wf", db.lock(200));

    assertThatThrownBy(() -> streams.stop(db.endpoint, "wf", "stale", locks)).isInstanceOf(LockLostException.class);
    assertThatThrownBy(() -> streams.delete(db.endpoint, "wf", locks)).isInstanceOf(LockLostException.class);
    assertThatThrownBy(() -> streams.insert(db.endpoint, List.of(stream("wf", "9")), locks))
        .isInstanceOf(LockLostException.class);

    List<Stream> after = streams.read(db.endpoint, "wf");
    assertThat(after).extracting(Stream::id).containsExactly(id);
    assertThat(after.get(0).state()).isEqualTo(StreamState.RUNNING);
    assertThat(after.get(0).message()).isEmpty();
  }

  @Test
  void deleteRemovesTheWorkflowsStreamsAndCopyStateOnly() throws Exception {
    List<Integer> ids = insert(stream("wf", "0"), stream("keep", "0"));
    MySqlTestSupport.exec("INSERT INTO " + db.endpoint.sidecarDb() + ".copy_state (vrepl_id, table_name) VALUES ("
        + ids.get(0) + ", 'customer'), (" + ids.get(1) + ", 'customer')");

    assertThat(streams.delete(db.endpoint, "wf", locks)).isEqualTo(1);
    assertThat(streams.delete(db.endpoint, "wf", locks)).as("idempotent").isZero();

    assertThat(streams.read(db.endpoint, "wf")).isEmpty();
    assertThat(streams.copyInProgress(db.endpoint, ids)).containsExactly(ids.get(1));
  }

  @Test
  void copyInProgressIsSeenFromCopyState() throws Exception {
    List<Integer> ids = insert(stream("wf", "0"), stream("wf", "1"));
    MySqlTestSupport.exec("UPDATE " + db.endpoint.sidecarDb() + ".vreplication SET state = 'Running'");
    MySqlTestSupport.exec("INSERT INTO " + db.endpoint.sidecarDb() + ".copy_state (vrepl_id, table_name) VALUES ("
        + ids.get(1) + ", 'customer'), (" + ids.get(1) + ", 'corder')");

    assertThat(streams.copyInProgress(db.endpoint, ids)).containsExactly(ids.get(1));
    assertThat(streams.copyInProgress(db.endpoint, List.of())).isEmpty();
    Stream copying = streams.read(db.endpoint, ids.get(1)).orElseThrow();
    assertThat(copying.copyPending()).isTrue();
    assertThat(copying.transactionLag(Instant.now())).isEqualTo(Stream.UNBOUNDED_LAG);
  }

  @Test
  void streamsOfOtherDatabasesOnTheServerAreNeverTouched() throws Exception {
    PrimaryEndpoint otherDb = MySqlTestSupport.endpoint("vt_other_" + db.suffix, db.endpoint.sidecarDb());
    streams.insert(otherDb, List.of(NewStream.stopped("wf", source("0"), START, otherDb.dbName(),
        WorkflowType.MOVE_TABLES, WorkflowSubType.NONE)), locks);
    insert(stream("wf", "0"));

    streams.start(db.endpoint, "wf", locks);
    streams.delete(db.endpoint, "wf", locks);

    assertThat(streams.read(otherDb, "wf")).singleElement().extracting(Stream::state).isEqualTo(StreamState.STOPPED);
  }

  @Test
  void reverseStreamsReplaceEarlierOnesAndStartStoppedFromTheTargetPosition() {
    List<Integer> forwardIds = insert(stream("commerce2customer", "0"));
    Stream forward = streams.read(db.endpoint, forwardIds.get(0)).orElseThrow();
    Position targetPos = Position.parse("MariaDB/0-2-7");
    NewStream reverse = ReverseStreams.reverse(new ReverseStreams.Spec("customer", "0", forward, targetPos, "commerce",
        KeyRange.FULL, new VSchema(false, Map.of(), Map.of()), db.endpoint.dbName(), "zone1", "zone1"));

    List<Integer> first = streams.replace(db.endpoint, "commerce2customer_reverse", List.of(reverse), locks);
    List<Integer> again = streams.replace(db.endpoint, "commerce2customer_reverse", List.of(reverse), locks);

    List<Stream> reversed = streams.read(db.endpoint, "commerce2customer_reverse");
    assertThat(reversed).extracting(Stream::id).containsExactlyElementsOf(again).doesNotContainAnyElementsOf(first);
    assertThat(reversed.get(0).state()).isEqualTo(StreamState.STOPPED);
    assertThat(reversed.get(0).pos()).isEqualTo(targetPos);
    assertThat(reversed.get(0).source().keyspace()).isEqualTo("customer");
    assertThat(reversed.get(0).source().filter().rules())
        .containsExactly(new BinlogSource.Rule("customer", "select * from `customer`"));

    assertThat(streams.start(db.endpoint, "commerce2customer_reverse", locks)).isEqualTo(1);
    assertThat(streams.read(db.endpoint, "commerce2customer")).singleElement()
        .extracting(Stream::state).isEqualTo(StreamState.STOPPED);
  }

  @Test
  void longMessagesAreCutToVitessLimit() {
    insert(stream("wf", "0"));

    streams.stop(db.endpoint, "wf", "é".repeat(700), locks);

    assertThat(streams.read(db.endpoint, "wf").get(0).message()).hasSize(475);
  }

  @Test
  void hostileWorkflowNamesAreRefusedBeforeAnyStatement() {
    assertThatThrownBy(() -> streams.read(db.endpoint, "wf' OR '1'='1"))
        .isInstanceOf(PointsmanException.class).hasMessageContaining("workflow name");
    assertThatThrownBy(() -> streams.delete(db.endpoint, "wf`; DROP TABLE x", locks))
        .isInstanceOf(PointsmanException.class).hasMessageContaining("workflow name");
  }

  @Test
  void aStreamMustWriteToTheDatabaseOfItsPrimary() {
    NewStream elsewhere = NewStream.stopped("wf", source("0"), START, "vt_elsewhere", WorkflowType.MOVE_TABLES,
        WorkflowSubType.NONE);
    assertThatThrownBy(() -> streams.insert(db.endpoint, List.of(elsewhere), locks))
        .hasMessageContaining("cannot run on");
    assertThat(streams.read(db.endpoint, "wf")).isEmpty();
  }

  @Test
  void unknownWorkflowsHaveNoStreams() {
    assertThat(streams.read(db.endpoint, "nothing")).isEmpty();
    assertThat(streams.read(db.endpoint, 12345)).isEmpty();
    assertThat(streams.copyInProgress(db.endpoint, Set.of(12345))).isEmpty();
  }
}
