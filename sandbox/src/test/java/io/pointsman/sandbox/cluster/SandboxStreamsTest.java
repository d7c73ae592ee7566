package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.sandbox.streams.StreamRunner;
import io.pointsman.sandbox.streams.StreamRunnerOptions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The streams MoveTables create leaves are ones the sandbox's stream runner executes: they copy,
 * then run, and every customer lands on the shard Vitess's hash vindex assigns it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SandboxStreamsTest extends SandboxFolderTest {
  @Test
  void moveTablesStreamsCopyThenReplicateIntoTheHashShards() throws SQLException {
    try (Sandbox sandbox = Sandbox.up(SandboxOptions.builder()
            .dataDir(dataDir).basePort(0).etcdPorts(0, 0).withoutReshardTargets().stopOnJvmExit(true).build())) {
      sandbox.moveTablesCreator().create(MoveTablesSpec.sandbox());
      MysqlCredentials account = sandbox.options().credentials();
      try (StreamRunner runner = StreamRunner.start(StreamRunnerOptions.builder()
          .topology(sandbox.store())
          .mysqlCredentials(account.user(), account.password())
          .pollInterval(Duration.ofMillis(100))
          .build())) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
          for (String shard : List.of("-80", "80-")) {
            try (Connection c = sandbox.connect("customer", shard)) {
              VReplicationStream s = VReplicationTable.read(c, "_vt", "commerce2customer").get(0);
              assertThat(s.state()).as("stream on %s (%s)", shard, s.message()).isEqualTo("Running");
              assertThat(s.pos()).startsWith("MariaDB/");
            }
          }
        });
        assertRowsFollowTheHashVindex(sandbox, 5);

        try (Connection c = sandbox.connect("commerce", "0"); Statement s = c.createStatement()) {
          s.execute("INSERT INTO vt_commerce.customer (customer_id, email) VALUES (6, 'frank@domain.com')");
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertRowsFollowTheHashVindex(sandbox, 6));
      }
    }
  }

  private static void assertRowsFollowTheHashVindex(Sandbox sandbox, int customers) throws SQLException {
    List<Long> all = new ArrayList<>();
    for (String shard : List.of("-80", "80-")) {
      try (Connection c = sandbox.connect("customer", shard)) {
        List<Long> ids = ids(c, "SELECT customer_id FROM vt_customer.customer");
        for (long id : ids) {
          assertThat(HashVindex.inKeyRange(id, KeyRange.ofShard(shard))).as("customer %d on %s", id, shard).isTrue();
        }
        for (long id : ids(c, "SELECT customer_id FROM vt_customer.corder")) {
          assertThat(HashVindex.inKeyRange(id, KeyRange.ofShard(shard))).as("order of %d on %s", id, shard).isTrue();
        }
        all.addAll(ids);
      }
    }
    assertThat(all).containsExactlyInAnyOrderElementsOf(
        LongStream.rangeClosed(1, customers).boxed().toList());
  }

  private static List<Long> ids(Connection c, String sql) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    return ids;
  }
}
