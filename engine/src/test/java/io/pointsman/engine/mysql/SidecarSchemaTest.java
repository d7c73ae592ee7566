package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SidecarSchemaTest {
  private MySqlTestSupport db;

  @BeforeEach
  void setUp() throws Exception {
    db = new MySqlTestSupport();
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
  }

  private List<String> columns(String table) throws Exception {
    List<String> cols = new ArrayList<>();
    try (Connection c = MySqlTestSupport.client(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '"
            + db.endpoint.sidecarDb() + "' AND TABLE_NAME = '" + table + "' ORDER BY ORDINAL_POSITION")) {
      while (rs.next()) {
        cols.add(rs.getString(1));
      }
    }
    return cols;
  }

  @Test
  void createsVitessTablesAndTheFenceWithTheDesignedColumns() throws Exception {
    db.schema.ensure(db.endpoint);

    assertThat(columns("vreplication")).containsExactly("id", "workflow", "source", "pos", "stop_pos", "max_tps",
        "max_replication_lag", "cell", "tablet_types", "time_updated", "transaction_timestamp", "state", "message",
        "db_name", "rows_copied", "tags", "time_heartbeat", "workflow_type", "time_throttled", "component_throttled",
        "reason_throttled", "workflow_sub_type", "defer_secondary_keys", "options");
    assertThat(columns("resharding_journal")).containsExactly("id", "db_name", "val");
    assertThat(columns("copy_state")).containsExactly("id", "vrepl_id", "table_name", "lastpk");
    assertThat(columns("lock_fence")).containsExactly("resource", "token", "epoch", "updated_at");
  }

  @Test
  void isIdempotentAndRepairsAMissingTable() throws Exception {
    db.schema.ensure(db.endpoint);
    MySqlTestSupport.exec("INSERT INTO " + db.endpoint.sidecarDb() + ".lock_fence (resource, token) VALUES ('r', 3)");
    MySqlTestSupport.exec("DROP TABLE " + db.endpoint.sidecarDb() + ".copy_state");

    // A new process (a fresh SidecarSchema) checks again, creates what is missing, keeps the rest.
    new SidecarSchema(db.pools).ensure(db.endpoint);
    new SidecarSchema(db.pools).ensure(db.endpoint);

    assertThat(columns("copy_state")).isNotEmpty();
    try (Connection c = MySqlTestSupport.client(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT token FROM " + db.endpoint.sidecarDb() + ".lock_fence")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(3);
    }
  }

  /** A write_gate made before groups gets the column; its rows stay, in no group. */
  @Test
  void aWriteGateFromBeforeGroupsGetsTheGroupColumnAndKeepsItsRows() throws Exception {
    db.schema.ensure(db.endpoint);
    String gate = db.endpoint.sidecarDb() + ".write_gate";
    MySqlTestSupport.exec("ALTER TABLE " + gate + " DROP COLUMN gate_group");
    MySqlTestSupport.exec("INSERT INTO " + gate + " (db_name, table_name, denied) VALUES ('d', 't', 1)");

    new SidecarSchema(db.pools).ensure(db.endpoint);

    assertThat(columns("write_gate")).containsExactly("db_name", "table_name", "denied", "gate_group", "prepared_by",
        "updated_at");
    assertThat(columns("write_gate_group")).containsExactly("db_name", "group_name", "denied", "updated_at");
    try (Connection c = MySqlTestSupport.client(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT denied, gate_group FROM " + gate + " WHERE table_name = 't'")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(1);
      assertThat(rs.getString(2)).isEmpty();
    }
  }
}
