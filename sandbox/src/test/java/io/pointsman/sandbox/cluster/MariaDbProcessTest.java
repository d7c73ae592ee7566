package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.net.LoopbackPorts;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MariaDbProcessTest {
  private static final MysqlCredentials ACCOUNT = new MysqlCredentials("pointsman", "it's a \\ test");

  @TempDir
  Path folder;

  @Test
  void startsAPrimaryShapedServerAndStopsItByPid() throws SQLException {
    MariaDbOptions options = MariaDbOptions.builder()
        .folder(folder).port(LoopbackPorts.freePort()).serverId(4242).credentials(ACCOUNT).build();
    long pid;
    try (MariaDbProcess db = MariaDbProcess.start(options)) {
      pid = db.pid();
      assertThat(options.initFile()).as("the file holding the password is gone").doesNotExist();
      try (Connection c = Jdbc.open("127.0.0.1", db.port(), ACCOUNT); Statement s = c.createStatement()) {
        assertThat(values(s, "SELECT @@server_id, @@log_bin, @@binlog_format, @@gtid_strict_mode,"
            + " @@gtid_domain_id, @@character_set_server, @@bind_address"))
            .containsExactly("4242", "1", "ROW", "1", "0", "utf8mb4", "127.0.0.1");
        assertThat(String.join("\n", column(s, "SHOW GRANTS"))).contains("GRANT ALL PRIVILEGES ON *.*");
        // The account's creation stays out of the binary log: no stream may replay it elsewhere.
        assertThat(String.join("\n", column(s, "SHOW BINLOG EVENTS"))).doesNotContainIgnoringCase("user");
      }
    }
    assertThat(ProcessControl.isRunning(pid)).isFalse();
    assertThat(LoopbackPorts.isListening(options.port())).isFalse();
  }

  @Test
  void restartsOnItsFolderWithTheDataKept() throws SQLException {
    MariaDbOptions options = MariaDbOptions.builder()
        .folder(folder).port(LoopbackPorts.freePort()).serverId(7).credentials(ACCOUNT).build();
    try (MariaDbProcess db = MariaDbProcess.start(options);
         Connection c = Jdbc.open("127.0.0.1", db.port(), ACCOUNT);
         Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE kept");
    }
    try (MariaDbProcess db = MariaDbProcess.start(options);
         Connection c = Jdbc.open("127.0.0.1", db.port(), ACCOUNT);
         Statement s = c.createStatement()) {
      assertThat(column(s, "SHOW DATABASES")).contains("kept");
    }
  }

  private static List<String> values(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      List<String> v = new ArrayList<>();
      for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
        v.add(rs.getString(i));
      }
      return v;
    }
  }

  private static List<String> column(Statement s, String sql) throws SQLException {
    List<String> v = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(rs.getString(i));
        }
        v.add(String.join(" ", row));
      }
    }
    return v;
  }
}
