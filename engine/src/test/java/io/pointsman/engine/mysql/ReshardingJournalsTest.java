package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ReshardingJournalsTest {
  private MySqlTestSupport db;
  private ReshardingJournals journals;

  @BeforeEach
  void setUp() throws Exception {
    db = new MySqlTestSupport();
    journals = new ReshardingJournals(db.pools, db.fence, db.schema);
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
  }

  private static Journal journal(long id, String localPosition) {
    return new Journal(id, Journal.MigrationType.TABLES, List.of("corder", "customer"), Position.parse(localPosition),
        List.of(new Journal.ShardGtid("customer", "-80", Position.parse("MariaDB/0-2-10")),
            new Journal.ShardGtid("customer", "80-", Position.parse("MariaDB/0-3-12"))),
        List.of(new Journal.KeyspaceShard("commerce", "0")), List.of());
  }

  @Test
  void writesOnceAndReadsBack() throws Exception {
    long id = Journal.migrationId("customer", Map.of("-80", List.of(1), "80-", List.of(1)));
    Journal j = journal(id, "MariaDB/0-1-77");

    assertThat(journals.read(db.endpoint, id)).isEmpty();
    assertThat(journals.create(db.endpoint, j, db.lock(5))).isTrue();
    assertThat(journals.create(db.endpoint, j, db.lock(5))).as("a retried write finds it done").isFalse();

    assertThat(journals.read(db.endpoint, id)).contains(j);
    try (Connection c = MySqlTestSupport.client(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT db_name, val FROM " + db.endpoint.sidecarDb()
            + ".resharding_journal WHERE id = " + id)) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo(db.endpoint.dbName());
      // TABLES is 0, which proto3 text leaves out, as in the journals Vitess writes for MoveTables.
      assertThat(rs.getString(2)).isEqualTo("id: " + id + " tables: \"corder\" tables: \"customer\""
          + " local_position: \"MariaDB/0-1-77\""
          + " shard_gtids { keyspace: \"customer\" shard: \"-80\" gtid: \"MariaDB/0-2-10\" }"
          + " shard_gtids { keyspace: \"customer\" shard: \"80-\" gtid: \"MariaDB/0-3-12\" }"
          + " participants { keyspace: \"commerce\" shard: \"0\" }");
    }
  }

  @Test
  void aDifferentJournalUnderTheSameIdIsRefused() {
    journals.create(db.endpoint, journal(7, "MariaDB/0-1-77"), db.lock(5));

    assertThatThrownBy(() -> journals.create(db.endpoint, journal(7, "MariaDB/0-1-78"), db.lock(5)))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS));
    assertThat(journals.read(db.endpoint, 7)).contains(journal(7, "MariaDB/0-1-77"));
  }

  @Test
  void aStaleLockWritesNoJournal() {
    journals.create(db.endpoint, journal(1, "MariaDB/0-1-1"), db.lock(9));

    assertThatThrownBy(() -> journals.create(db.endpoint, journal(2, "MariaDB/0-1-1"), db.lock(8)))
        .isInstanceOf(LockLostException.class);
    assertThat(journals.read(db.endpoint, 2)).isEmpty();
  }

  @Test
  void aJournalVitessWroteReadsBack() throws Exception {
    db.schema.ensure(db.endpoint);
    MySqlTestSupport.exec("INSERT INTO " + db.endpoint.sidecarDb() + ".resharding_journal (id, db_name, val) VALUES"
        + " (11, '" + db.endpoint.dbName() + "', 'id:11 migration_type:SHARDS tables:\"/.*\""
        + " local_position:\"MariaDB/0-1-5\" shard_gtids:{keyspace:\"customer\" shard:\"-80\" gtid:\"MariaDB/0-2-3\"}"
        + " participants:{keyspace:\"customer\" shard:\"0\"} source_workflows:\"wf2\"')");

    assertThat(journals.read(db.endpoint, 11)).contains(new Journal(11, Journal.MigrationType.SHARDS, List.of("/.*"),
        Position.parse("MariaDB/0-1-5"), List.of(new Journal.ShardGtid("customer", "-80", Position.parse("MariaDB/0-2-3"))),
        List.of(new Journal.KeyspaceShard("customer", "0")), List.of("wf2")));
  }

  @Test
  void aValThatIsNotTextFormatFailsNamingTheRowAndNothingIsWritten() throws Exception {
    String table = db.endpoint.sidecarDb() + ".resharding_journal";
    db.schema.ensure(db.endpoint);
    MySqlTestSupport.exec("INSERT INTO " + table + " (id, db_name, val) VALUES (7, '" + db.endpoint.dbName()
        + "', '{\"id\":7,\"migration_type\":\"TABLES\"}')");
    String expected = table + " id 7 on " + db.endpoint + ": val is not a valid binlogdata.Journal: ";

    assertThatThrownBy(() -> journals.read(db.endpoint, 7)).hasMessageStartingWith(expected);
    assertThatThrownBy(() -> journals.create(db.endpoint, journal(7, "MariaDB/0-1-77"), db.lock(5)))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageStartingWith(expected);
    try (Connection c = MySqlTestSupport.client(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id, val FROM " + table + " ORDER BY id")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getLong(1)).isEqualTo(7);
      assertThat(rs.getString(2)).isEqualTo("{\"id\":7,\"migration_type\":\"TABLES\"}");
      assertThat(rs.next()).as("no other row").isFalse();
    }
  }
}
