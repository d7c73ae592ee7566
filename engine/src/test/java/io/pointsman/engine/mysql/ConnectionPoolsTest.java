package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.TabletAlias;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ConnectionPoolsTest {

  @Test
  void pooledAndDedicatedConnectionsReachThePrimaryWithTheWorkersCredentials() throws Exception {
    try (MySqlTestSupport db = new MySqlTestSupport()) {
      try (Connection pooled = db.pools.connection(db.endpoint); Statement st = pooled.createStatement();
          ResultSet rs = st.executeQuery("SELECT CURRENT_USER()")) {
        rs.next();
        assertThat(rs.getString(1)).startsWith(MySqlTestSupport.options().user() + "@");
      }
      try (Connection dedicated = db.pools.dedicatedConnection(db.endpoint)) {
        assertThat(dedicated.isValid(5)).isTrue();
      }
    }
  }

  @Test
  void anUnreachablePrimaryIsUnavailable() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    PrimaryEndpoint nowhere = new PrimaryEndpoint("customer", "0", new TabletAlias("zone1", 1), "127.0.0.1",
        closedPort, "vt_customer", "_vt");
    MySqlOptions fast = MySqlOptions.builder().user("u").password("p").tlsMode(MySqlOptions.TlsMode.DISABLED)
        .connectTimeout(Duration.ofMillis(500)).build();
    try (ConnectionPools pools = new ConnectionPools(fast)) {
      assertThatThrownBy(() -> pools.connection(nowhere))
          .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE))
          .hasMessageContaining("connecting to customer/0");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"db.example:3306/?allowLoadLocalInfile=true", "host name", "h&x=1", "", "-dash"})
  void hostsThatCouldAlterTheJdbcUrlAreRefused(String host) {
    assertThatThrownBy(() -> new PrimaryEndpoint("customer", "0", new TabletAlias("zone1", 1), host, 3306,
        "vt_customer", "_vt"))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION));
  }

  @Test
  void closedPoolsRefuseWork() {
    ConnectionPools pools = new ConnectionPools(MySqlTestSupport.options());
    pools.close();
    pools.close();
    assertThatThrownBy(() -> pools.connection(MySqlTestSupport.endpoint("vt_x", "_vt")))
        .isInstanceOf(PointsmanException.class).hasMessageContaining("closed");
  }
}
