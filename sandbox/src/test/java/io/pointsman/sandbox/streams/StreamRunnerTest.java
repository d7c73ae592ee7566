package io.pointsman.sandbox.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.api.gtid.Position;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import io.pointsman.sandbox.cluster.HashVindex;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The runner against the shared MariaDB: databases of one server stand for the shard primaries
 * (the binlog is filtered by database name), and a fresh topology points at them.
 */
@Timeout(90)
class StreamRunnerTest {
  private static final VSchema CUSTOMER_VSCHEMA = new VSchema(true, Map.of("hash", new Vindex("hash", null, null)),
      Map.of("customer", new VSchemaTable(null, List.of(new ColumnVindex("customer_id", "hash", null)), null, null),
          "corder", new VSchemaTable(null, List.of(new ColumnVindex("customer_id", "hash", null)), null, null)));
  private static final KeyRange LOW = new KeyRange("", "80");

  private StreamTestBed bed;

  @BeforeEach
  void setUp() throws SQLException {
    bed = new StreamTestBed();
  }

  @AfterEach
  void tearDown() throws SQLException {
    bed.close();
  }

  private static ConditionFactory eventually() {
    return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
  }

  private void createTables(String db) throws SQLException {
    bed.exec("CREATE TABLE " + db + ".customer (customer_id bigint NOT NULL PRIMARY KEY, email varchar(128))");
    bed.exec("CREATE TABLE " + db + ".corder (order_id bigint NOT NULL PRIMARY KEY, customer_id bigint NOT NULL,"
        + " sku varbinary(64), price decimal(10,2))");
  }

  private void insertCustomer(String db, long id) throws SQLException {
    bed.exec("INSERT INTO " + db + ".customer VALUES (?, ?)", id, "c" + id + "@example.com");
  }

  private void insertOrder(String db, long orderId, long customerId) throws SQLException {
    bed.exec("INSERT INTO " + db + ".corder VALUES (?, ?, ?, ?)", orderId, customerId, "sku-" + orderId, orderId + 0.5);
  }

  private static boolean inRange(KeyRange range, long customerId) {
    return HashVindex.inKeyRange(customerId, range);
  }

  /** The source MoveTables create writes for the target shard of {@code range}. */
  private static BinlogSource moveTablesSource(String range) {
    String where = " where in_keyrange(customer_id, 'customer.hash', '" + range + "')";
    return BinlogSource.of("commerce", "0", BinlogSource.Filter.of(
        new BinlogSource.Rule("corder", "select * from corder" + where),
        new BinlogSource.Rule("customer", "select * from customer" + where)));
  }

  /** commerce/0 → customer/-80 and customer/80-, as MoveTables create leaves them (streams in Init). */
  private final class MoveTables {
    final String source;
    final String low;
    final String high;
    long lowStream;
    long highStream;

    MoveTables() throws SQLException {
      source = bed.primary("src", "commerce", "0", 100);
      low = bed.primary("tlow", "customer", "-80", 200);
      high = bed.primary("thigh", "customer", "80-", 300);
      bed.vschema("customer", CUSTOMER_VSCHEMA);
      for (String db : List.of(source, low, high)) {
        createTables(db);
      }
    }

    void load(int customers, int orders) throws SQLException {
      for (long c = 1; c <= customers; c++) {
        insertCustomer(source, c);
      }
      for (long o = 1; o <= orders; o++) {
        insertOrder(source, o, o % customers + 1);
      }
    }

    void createStreams() throws SQLException {
      lowStream = bed.insertStream("commerce2customer", moveTablesSource("-80"), StreamState.INIT, Position.ZERO, low);
      highStream = bed.insertStream("commerce2customer", moveTablesSource("80-"), StreamState.INIT, Position.ZERO, high);
    }

    /** Loads the rows and creates both streams, then starts the runner; returns it once both streams run. */
    StreamRunner running(int customers, int orders) throws Exception {
      load(customers, orders);
      createStreams();
      StreamRunner runner = bed.startRunner();
      awaitRunning();
      return runner;
    }

    /** Each target holds exactly the source rows whose keyspace id is in its range. */
    boolean split() throws SQLException {
      return splitOf("customer", 0) && splitOf("corder", 1);
    }

    private boolean splitOf(String table, int customerColumn) throws SQLException {
      List<List<String>> all = bed.rows(source, table);
      List<List<String>> wantLow = new ArrayList<>();
      List<List<String>> wantHigh = new ArrayList<>();
      for (List<String> row : all) {
        long customerId = Long.parseLong(new String(HexFormat.of().parseHex(row.get(customerColumn)), StandardCharsets.US_ASCII));
        (inRange(LOW, customerId) ? wantLow : wantHigh).add(row);
      }
      return bed.rows(low, table).equals(wantLow) && bed.rows(high, table).equals(wantHigh);
    }

    void awaitRunning() {
      eventually().until(() -> state(lowStream).equals("Running") && state(highStream).equals("Running"));
    }
  }

  private String state(long id) throws SQLException {
    return bed.stream(id).state();
  }

  /** A customer id whose keyspace id is in (or out of) the low range, above {@code from}. */
  private static long customerIn(KeyRange range, boolean inside, long from) {
    long id = from;
    while (inRange(range, id) != inside) {
      id++;
    }
    return id;
  }

  @Test
  void copyThenCatchUpLeavesEachTargetExactlyTheSourceRowsOfItsKeyRange() throws Exception {
    MoveTables mt = new MoveTables();
    mt.load(60, 150);
    mt.createStreams();
    bed.startRunner();

    mt.awaitRunning();
    assertThat(mt.split()).isTrue();
    // What workflows read back: a running stream, its copy finished, at a position.
    Stream low = bed.vreplication.read(bed.endpoint(mt.low), (int) mt.lowStream).orElseThrow();
    assertThat(low.state()).isEqualTo(StreamState.RUNNING);
    assertThat(low.copyPending()).isFalse();
    assertThat(low.pos().isZero()).isFalse();
    assertThat(bed.column(mt.lowStream, "rows_copied") + bed.column(mt.highStream, "rows_copied"))
        .isEqualTo(60 + 150);

    // Inserts, updates, deletes, and an update that moves a customer from one range to the other.
    long lowId = customerIn(LOW, true, 1000);
    long highId = customerIn(LOW, false, 1000);
    insertCustomer(mt.source, lowId);
    insertCustomer(mt.source, highId);
    insertOrder(mt.source, 5000, lowId);
    bed.exec("UPDATE " + mt.source + ".customer SET email = 'changed' WHERE customer_id <= 10");
    bed.exec("DELETE FROM " + mt.source + ".corder WHERE order_id BETWEEN 20 AND 40");
    long mover = customerIn(LOW, true, 1);
    long moved = customerIn(LOW, false, 2000);
    bed.exec("UPDATE " + mt.source + ".customer SET customer_id = ? WHERE customer_id = ?", moved, mover);
    Position sourcePosition = Position.parse(bed.position());

    eventually().until(mt::split);
    assertThat(bed.ids(mt.high, "customer")).contains(moved).doesNotContain(mover);
    assertThat(bed.ids(mt.low, "customer")).doesNotContain(mover, moved);
    // Both streams catch up to the source position as a workflow waits for it, even the one the
    // last transactions did not touch; the last applied commit time and heartbeats are recorded.
    eventually().until(() -> caughtUp(bed.endpoint(mt.low), mt.lowStream, sourcePosition)
        && caughtUp(bed.endpoint(mt.high), mt.highStream, sourcePosition));
    Stream caughtUp = bed.vreplication.read(bed.endpoint(mt.low), (int) mt.lowStream).orElseThrow();
    assertThat(caughtUp.transactionTimestamp()).isAfter(Instant.now().minus(Duration.ofMinutes(5)));
    eventually().until(() -> bed.column(mt.highStream, "time_heartbeat") > 0);
  }

  private boolean caughtUp(PrimaryEndpoint endpoint, long id, Position position) {
    return bed.vreplication.read(endpoint, (int) id).orElseThrow().pos().atLeast(position);
  }

  @Test
  void rowsWrittenDuringTheCopyArrive() throws Exception {
    MoveTables mt = new MoveTables();
    mt.load(40, 80);
    mt.createStreams();
    // Holding the low target's tables keeps its copy waiting after the snapshot was taken.
    try (Connection lock = StreamTestBed.connect()) {
      lock.createStatement().execute("LOCK TABLES " + mt.low + ".customer WRITE, " + mt.low + ".corder WRITE");
      bed.startRunner();
      eventually().until(() -> state(mt.lowStream).equals("Copying") && bed.copyStateRows(mt.lowStream) == 2);

      long lowId = customerIn(LOW, true, 500);
      insertCustomer(mt.source, lowId);
      insertOrder(mt.source, 900, lowId);
      bed.exec("UPDATE " + mt.source + ".customer SET email = 'during-copy'");
      bed.exec("DELETE FROM " + mt.source + ".corder WHERE order_id <= 30");
      assertThat(state(mt.lowStream)).isEqualTo("Copying");
      lock.createStatement().execute("UNLOCK TABLES");
    }
    mt.awaitRunning();
    eventually().until(mt::split);
    assertThat(bed.ids(mt.low, "customer")).contains(customerIn(LOW, true, 500));
  }

  @Test
  void aStoppedStreamAppliesNothingMore() throws Exception {
    MoveTables mt = new MoveTables();
    StreamRunner runner = mt.running(20, 20);
    long before = customerIn(LOW, true, 100);
    insertCustomer(mt.source, before);
    eventually().until(() -> bed.ids(mt.low, "customer").contains(before));

    bed.exec("UPDATE " + bed.sidecar + ".vreplication SET state = 'Stopped', message = 'by test' WHERE id = ?", mt.lowStream);
    String stoppedAt = bed.stream(mt.lowStream).pos();
    eventually().until(() -> runner.activeStreams() == 1);
    long after = customerIn(LOW, true, before + 1);
    long witness = customerIn(LOW, false, 100);
    insertCustomer(mt.source, after);
    insertCustomer(mt.source, witness);

    // The other stream shows the runner read past the write; the stopped one must not have applied it.
    eventually().until(() -> bed.ids(mt.high, "customer").contains(witness));
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() ->
        !bed.ids(mt.low, "customer").contains(after) && bed.stream(mt.lowStream).pos().equals(stoppedAt)
            && state(mt.lowStream).equals("Stopped"));
    assertThat(bed.stream(mt.lowStream).message()).isEqualTo("by test");
  }

  @Test
  void stopPositionIsHonoured() throws Exception {
    MoveTables mt = new MoveTables();
    StreamRunner runner = mt.running(10, 10);
    bed.exec("UPDATE " + bed.sidecar + ".vreplication SET state = 'Stopped' WHERE id = ?", mt.lowStream);
    eventually().until(() -> runner.activeStreams() == 1);

    long a = customerIn(LOW, true, 100);
    insertCustomer(mt.source, a);
    String afterA = bed.position();
    long b = customerIn(LOW, true, a + 1);
    insertCustomer(mt.source, b);
    bed.exec("UPDATE " + bed.sidecar + ".vreplication SET stop_pos = ?, state = 'Running' WHERE id = ?",
        afterA, mt.lowStream);

    eventually().until(() -> state(mt.lowStream).equals("Stopped"));
    StreamRow row = bed.stream(mt.lowStream);
    assertThat(row.message()).isEqualTo("Reached stopping position, done playing logs");
    assertThat(row.pos()).isEqualTo(afterA);
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() ->
        bed.ids(mt.low, "customer").contains(a) && !bed.ids(mt.low, "customer").contains(b));
  }

  /**
   * A backlog is applied in few target transactions, not one per source transaction (the runner
   * must keep up with a busy source), and still exactly once, in source order, ending at the
   * source's position, with a stop position in the middle of the backlog honoured.
   */
  @Test
  void aBacklogIsAppliedInBatchesExactlyOnceAndStopsMidBatchAtItsStopPosition() throws Exception {
    MoveTables mt = new MoveTables();
    StreamRunner runner = mt.running(5, 0);
    bed.exec("UPDATE " + bed.sidecar + ".vreplication SET state = 'Stopped' WHERE id IN (?, ?)",
        mt.lowStream, mt.highStream);
    eventually().until(() -> runner.activeStreams() == 0);

    int backlog = 300;
    List<Long> low = new ArrayList<>();
    long next = 1000;
    for (int i = 0; i < backlog; i++) {
      next = customerIn(LOW, true, next + 1);
      low.add(next);
      insertCustomer(mt.source, next);
    }
    // the same row changed in later transactions: only source order gives the last value
    bed.exec("UPDATE " + mt.source + ".customer SET email = 'first' WHERE customer_id = ?", low.get(0));
    bed.exec("UPDATE " + mt.source + ".customer SET email = 'last' WHERE customer_id = ?", low.get(0));
    long midway = customerIn(LOW, false, 10_000);
    insertCustomer(mt.source, midway);
    String stopAt = bed.position();
    long beyond = customerIn(LOW, true, next + 1);
    insertCustomer(mt.source, beyond);
    long lowTxnsBefore = targetTransactions(mt.low);

    bed.exec("UPDATE " + bed.sidecar + ".vreplication SET state = 'Running', stop_pos = ? WHERE id = ?",
        stopAt, mt.lowStream);
    eventually().until(() -> state(mt.lowStream).equals("Stopped"));

    assertThat(bed.stream(mt.lowStream).pos()).isEqualTo(stopAt);
    List<Long> applied = bed.ids(mt.low, "customer");
    assertThat(applied).containsAll(low).doesNotContain(beyond);
    assertThat(bed.queryString("SELECT email FROM " + mt.low + ".customer WHERE customer_id = ?", low.get(0)))
        .isEqualTo("last");
    long lowTxns = targetTransactions(mt.low) - lowTxnsBefore;
    assertThat(lowTxns).as("target transactions for %s source transactions", backlog + 2)
        .isLessThanOrEqualTo((backlog + 2) / 4);
  }

  /** Transactions in the server's binlogs that wrote a table of the database. */
  private long targetTransactions(String db) throws SQLException {
    long count = 0;
    try (Connection c = StreamTestBed.connect(); java.sql.Statement st = c.createStatement()) {
      List<String> files = new ArrayList<>();
      try (java.sql.ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
        while (rs.next()) {
          files.add(rs.getString(1));
        }
      }
      String marker = "(" + db + ".";
      for (String file : files) {
        boolean inTxn = false;
        boolean touches = false;
        try (java.sql.ResultSet rs = st.executeQuery("SHOW BINLOG EVENTS IN '" + file + "'")) {
          while (rs.next()) {
            String type = rs.getString("Event_type");
            String info = rs.getString("Info");
            if (type.equals("Gtid")) {
              inTxn = true;
              touches = false;
            } else if (inTxn && type.equals("Table_map") && info != null && info.contains(marker)) {
              touches = true;
            } else if (inTxn && (type.equals("Xid") || type.equals("Query") && "COMMIT".equals(info))) {
              count += touches ? 1 : 0;
              inTxn = false;
            }
          }
        }
      }
    }
    return count;
  }

  @Test
  void reshardStreamCopiesAndFollowsOnlyItsKeyRange() throws Exception {
    String source = bed.primary("src", "customer", "-80", 200);
    String first = bed.primary("t40", "customer", "-40", 400);
    String second = bed.primary("t4080", "customer", "40-80", 500);
    bed.vschema("customer", CUSTOMER_VSCHEMA);
    for (String db : List.of(source, first, second)) {
      createTables(db);
    }
    // The source shard holds only rows of its own range, as a real -80 shard does.
    List<Long> ids = new ArrayList<>();
    for (long c = 1; ids.size() < 50; c++) {
      if (inRange(LOW, c)) {
        ids.add(c);
        insertCustomer(source, c);
        insertOrder(source, c * 10, c);
      }
    }
    long s1 = bed.insertStream("reshard", BinlogSource.of("customer", "-80",
        BinlogSource.Filter.of(new BinlogSource.Rule("/.*", "-40"))), StreamState.INIT, Position.ZERO, first);
    long s2 = bed.insertStream("reshard", BinlogSource.of("customer", "-80",
        BinlogSource.Filter.of(new BinlogSource.Rule("/.*", "40-80"))), StreamState.INIT, Position.ZERO, second);
    bed.startRunner();
    eventually().until(() -> state(s1).equals("Running") && state(s2).equals("Running"));

    KeyRange r1 = new KeyRange("", "40");
    KeyRange r2 = new KeyRange("40", "80");
    long late1 = customerIn(r1, true, 10_000);
    long late2 = customerIn(r2, true, 10_000);
    insertCustomer(source, late1);
    insertCustomer(source, late2);
    ids.add(late1);
    ids.add(late2);
    eventually().until(() -> bed.ids(first, "customer").contains(late1) && bed.ids(second, "customer").contains(late2));

    List<Long> want1 = ids.stream().filter(id -> inRange(r1, id)).sorted().toList();
    List<Long> want2 = ids.stream().filter(id -> inRange(r2, id)).sorted().toList();
    assertThat(want1).isNotEmpty();
    assertThat(want2).isNotEmpty();
    assertThat(bed.ids(first, "customer")).isEqualTo(want1);
    assertThat(bed.ids(second, "customer")).isEqualTo(want2);
    assertThat(bed.ids(first, "corder")).isEqualTo(want1.stream().filter(id -> id < 10_000).map(id -> id * 10).toList());
  }

  @Test
  void anUndecodableFilterPutsTheStreamInErrorWithTheReason() throws Exception {
    String source = bed.primary("src", "commerce", "0", 100);
    String target = bed.primary("tgt", "customer", "0", 200);
    createTables(source);
    createTables(target);
    long badFilter = bed.insertStream("bad", BinlogSource.of("commerce", "0", BinlogSource.Filter.of(
        new BinlogSource.Rule("customer", "select * from customer where customer_id > 5"))), StreamState.INIT,
        Position.ZERO, target);
    // The JSON pointsman wrote before it stored Vitess's text format.
    long badJson = bed.insertRawStream("bad", "{\"keyspace\":\"commerce\",\"shard\":\"0\",\"filter\":{\"rules\":"
        + "[{\"match\":\"customer\"}]}}", StreamState.RUNNING, "MariaDB/0-1-1", target);
    bed.startRunner();

    eventually().until(() -> state(badFilter).equals("Error") && state(badJson).equals("Error"));
    assertThat(bed.stream(badFilter).message()).contains("unsupported filter").contains("customer_id > 5");
    assertThat(bed.stream(badJson).message())
        .startsWith(bed.sidecar + ".vreplication id " + badJson + ": source is not a valid binlogdata.BinlogSource: ");
    assertThat(bed.rows(target, "customer")).isEmpty();
  }

  @Test
  void columnValuesOfEveryCommonTypeSurviveCopyAndApply() throws Exception {
    String source = bed.primary("src", "commerce", "0", 100);
    String target = bed.primary("tgt", "archive", "0", 200);
    String ddl = " (id int unsigned NOT NULL PRIMARY KEY, ti tinyint, tiu tinyint unsigned, si smallint,"
        + " siu smallint unsigned, mi mediumint, miu mediumint unsigned, ii int, iu int unsigned, bi bigint,"
        + " biu bigint unsigned, de decimal(20,6), fl float, db double, ch char(5), vc varchar(64), vb varbinary(64),"
        + " bn binary(4), tx text, bl blob, en enum('a','b','c'), st set('x','y','z'), bt bit(10), dt date,"
        + " dtm datetime(6), ts timestamp(3) NULL DEFAULT NULL, tm time(2), yr year, js json) DEFAULT CHARSET=utf8mb4";
    bed.exec("CREATE TABLE " + source + ".types_t" + ddl);
    bed.exec("CREATE TABLE " + target + ".types_t" + ddl);
    String full = " VALUES (%d, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295,"
        + " -9223372036854775808, 18446744073709551615, -12345678901234.123456, 1.5, 2.25, 'ab', 'h\u00e9llo \ud83d\ude00',"
        + " x'00ff10', x'01020304', 'some text', x'deadbeef', 'b', 'x,z', b'1010101010', '2024-02-29',"
        + " '2024-02-29 13:14:15.123456', '2024-03-01 01:02:03.456', '838:59:58.50', 2024, '{\"a\": [1, 2]}')";
    String zero = " VALUES (%d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '', '', '', x'00000000', '', '', 'a', '', b'0',"
        + " '0000-00-00', '0000-00-00 00:00:00', '1970-01-01 00:00:01', '00:00:00', 0, '{}')";
    String nulls = " (id) VALUES (%d)";
    bed.exec("INSERT INTO " + source + ".types_t" + String.format(full, 1));
    bed.exec("INSERT INTO " + source + ".types_t" + String.format(zero, 2));
    bed.exec("INSERT INTO " + source + ".types_t" + String.format(nulls, 3));
    long stream = bed.insertStream("archive", BinlogSource.of("commerce", "0",
        BinlogSource.Filter.of(new BinlogSource.Rule("/.*", ""))), StreamState.INIT, Position.ZERO, target);
    bed.startRunner();
    eventually().until(() -> state(stream).equals("Running"));
    assertThat(bed.rows(target, "types_t")).isEqualTo(bed.rows(source, "types_t"));

    bed.exec("INSERT INTO " + source + ".types_t" + String.format(full, 11));
    bed.exec("INSERT INTO " + source + ".types_t" + String.format(zero, 12));
    bed.exec("INSERT INTO " + source + ".types_t" + String.format(nulls, 13));
    bed.exec("UPDATE " + source + ".types_t SET ti = 127, iu = 7, biu = 9223372036854775808, vc = 'upd',"
        + " dtm = '1999-12-31 23:59:59.999999', en = 'c', st = 'y', bt = b'11', js = '[]' WHERE id = 1");
    bed.exec("DELETE FROM " + source + ".types_t WHERE id = 2");
    eventually().until(() -> bed.rows(target, "types_t").equals(bed.rows(source, "types_t")));
  }

  @Test
  void anUnreachableSourceIsRetriedAndPickedUpOnceTheTopologyPointsRight() throws Exception {
    MoveTables mt = new MoveTables();
    mt.load(10, 10);
    TabletAlias sourceTablet = new TabletAlias(StreamTestBed.CELL, 100);
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    int realPort = bed.topo.getRequired(bed.topo.keys().tablet(sourceTablet)).value().mysqlPort();
    bed.topo.update(bed.topo.keys().tablet(sourceTablet), t -> withPort(t, closedPort), TopologyStore.UNLOCKED);
    mt.createStreams();
    StreamRunner runner = bed.startRunner();

    eventually().until(() -> runner.activeStreams() == 2);
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
        .until(() -> state(mt.lowStream).equals("Init") && state(mt.highStream).equals("Init"));
    bed.topo.update(bed.topo.keys().tablet(sourceTablet), t -> withPort(t, realPort), TopologyStore.UNLOCKED);
    mt.awaitRunning();
    assertThat(mt.split()).isTrue();
  }

  private static Tablet withPort(Tablet t, int port) {
    return new Tablet(t.alias(), t.hostname(), t.portMap(), t.keyspace(), t.shard(), t.keyRange(), t.type(),
        t.dbNameOverride(), t.mysqlHostname(), port);
  }

  @Test
  void aReverseStreamStartsAtItsPositionWithoutCopyingAndWritesThroughADenyBarrier() throws Exception {
    String original = bed.primary("src", "commerce", "0", 100);
    String moved = bed.primary("tlow", "customer", "-80", 200);
    createTables(original);
    createTables(moved);
    long before = customerIn(LOW, true, 1);
    insertCustomer(moved, before);
    Position switchedAt = Position.parse(bed.position());
    long reverse = bed.insertStream("commerce2customer_reverse", BinlogSource.of("customer", "-80",
        BinlogSource.Filter.of(new BinlogSource.Rule("customer", "select * from customer"))), StreamState.STOPPED,
        switchedAt, original);
    // The barrier a switch puts on the original source: every session but a stream's is refused.
    bed.writeBarrier.deny(bed.endpoint(original), WriteScope.tables(List.of("customer")), bed.locks,
        Duration.ofSeconds(10));
    assertThatThrownBy(() -> insertCustomer(original, 999_999)).satisfies(e -> assertThat(WriteBarrier.isWriteDenied(e)).isTrue());
    bed.startRunner();

    long after = customerIn(LOW, true, before + 1);
    insertCustomer(moved, after);
    bed.exec("UPDATE " + bed.sidecar + ".vreplication SET state = 'Running' WHERE id = ?", reverse);
    eventually().until(() -> bed.ids(original, "customer").contains(after));
    bed.exec("UPDATE " + moved + ".customer SET email = 'back' WHERE customer_id = ?", after);
    eventually().until(() -> "back".equals(bed.queryString("SELECT email FROM " + original + ".customer"
        + " WHERE customer_id = ?", after)));
    assertThat(bed.ids(original, "customer")).containsExactly(after);
    assertThat(bed.column(reverse, "rows_copied")).isZero();
    bed.exec("DELETE FROM " + moved + ".customer WHERE customer_id = ?", after);
    eventually().until(() -> bed.ids(original, "customer").isEmpty());
  }

  /**
   * The write barrier's triggers go to the source's binary log (so replicas have them) but are not
   * DDL for a stream: one that stops on DDL runs on past a deny and an allow, while a table change
   * of the source's own still stops it.
   */
  @Test
  void theBarriersTriggerDdlIsNotDdlToAStreamThatStopsOnDdl() throws Exception {
    MoveTables mt = new MoveTables();
    mt.load(4, 0);
    BinlogSource plain = moveTablesSource("-80");
    BinlogSource stopOnDdl = new BinlogSource(plain.keyspace(), plain.shard(), null, null, List.of(), plain.filter(),
        BinlogSource.OnDdl.STOP, false, null, null, null, null);
    long stream = bed.insertStream("commerce2customer", stopOnDdl, StreamState.INIT, Position.ZERO, mt.low);
    bed.startRunner();
    eventually().until(() -> state(stream).equals("Running"));

    bed.writeBarrier.deny(bed.endpoint(mt.source), WriteScope.tables(List.of("customer", "corder")), bed.locks,
        Duration.ofSeconds(10));
    bed.writeBarrier.allow(bed.endpoint(mt.source), WriteScope.tables(List.of("customer", "corder")), bed.locks,
        Duration.ofSeconds(10));
    // The barrier's sessions have no default database; logged from one that uses the source's, the
    // same statements carry its name, as the source's own DDL does.
    try (Connection c = StreamTestBed.connect(); Statement st = c.createStatement()) {
      st.execute("USE " + mt.source);
      st.execute("CREATE TRIGGER pointsman_deny_customer_ins BEFORE INSERT ON customer FOR EACH ROW"
          + " SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '" + WriteBarrier.DENIED_MESSAGE_PREFIX + " on table customer'");
      st.execute("DROP TRIGGER IF EXISTS pointsman_deny_customer_ins");
    }
    long id = customerIn(LOW, true, 1000);
    insertCustomer(mt.source, id);
    eventually().until(() -> bed.ids(mt.low, "customer").contains(id));
    assertThat(state(stream)).isEqualTo("Running");

    // The negative control: the source's own DDL, from a session using its database, stops it.
    try (Connection c = StreamTestBed.connect(); Statement st = c.createStatement()) {
      st.execute("USE " + mt.source);
      st.execute("ALTER TABLE customer ADD COLUMN note varchar(8)");
    }
    eventually().until(() -> state(stream).equals("Stopped"));
    assertThat(bed.stream(stream).message()).contains("ALTER TABLE");
  }
}
