package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.gtid.GtidFlavor;
import io.pointsman.api.gtid.Position;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PrimaryPositionsTest {
  private MySqlTestSupport db;
  private PrimaryPositions positions;

  @BeforeEach
  void setUp() throws Exception {
    db = new MySqlTestSupport();
    positions = new PrimaryPositions(db.pools);
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
  }

  @Test
  void flavorComesFromTheVersionString() {
    assertThat(ServerFlavor.fromVersion("10.11.6-MariaDB-0+deb12u1-log")).isEqualTo(ServerFlavor.MARIADB);
    assertThat(ServerFlavor.fromVersion("8.0.36")).isEqualTo(ServerFlavor.MYSQL);
    assertThat(ServerFlavor.fromVersion("8.4.3-commercial")).isEqualTo(ServerFlavor.MYSQL);
    assertThat(ServerFlavor.MYSQL.gtidFlavor()).isEqualTo(GtidFlavor.MYSQL56);
    assertThat(ServerFlavor.MARIADB.gtidFlavor()).isEqualTo(GtidFlavor.MARIADB);
  }

  @Test
  void readsTheMariadbPrimaryPositionAndSeesItAdvancePastEveryCommit() throws Exception {
    assertThat(positions.flavor(db.endpoint)).isEqualTo(ServerFlavor.MARIADB);
    Position before = positions.current(db.endpoint);
    assertThat(before.flavor()).contains(GtidFlavor.MARIADB);

    MySqlTestSupport.exec("CREATE TABLE " + db.table("p") + " (id int PRIMARY KEY)");
    MySqlTestSupport.exec("INSERT INTO " + db.table("p") + " VALUES (1)");
    Position after = positions.current(db.endpoint);

    assertThat(after.atLeast(before)).isTrue();
    assertThat(before.atLeast(after)).isFalse();
    assertThat(Position.parse(after.encode())).isEqualTo(after);
  }

  @Test
  void mysqlsGtidExecutedTextParsesAsItIsPrinted() {
    // What SELECT @@GLOBAL.gtid_executed returns on a MySQL 8 primary that was once a replica.
    String gtidExecuted = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:11-18,\n8f0d7a1c-0000-11ee-8000-0242ac120002:1-3";
    Position p = Position.parse(ServerFlavor.MYSQL.gtidFlavor(), gtidExecuted);
    assertThat(p.encode()).isEqualTo(
        "MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:11-18,8f0d7a1c-0000-11ee-8000-0242ac120002:1-3");
  }
}
