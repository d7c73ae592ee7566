package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The gate's changes set the session's innodb_lock_wait_timeout for their waits and must leave
 * a pooled connection as they found it, whatever it was (not the server's default).
 */
class LockWaitTest {
  @Test
  void theSessionsLockWaitIsSetForTheChangeAndPutBackAsItWas() throws Exception {
    try (Connection c = MySqlTestSupport.client()) {
      exec(c, "SET SESSION innodb_lock_wait_timeout = 7");
      try (WriteGateRows.LockWait ignored = WriteGateRows.LockWait.set(c, 0)) {
        assertThat(lockWait(c)).isZero();
      }
      assertThat(lockWait(c)).isEqualTo(7);
    }
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static long lockWait(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@SESSION.innodb_lock_wait_timeout")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
