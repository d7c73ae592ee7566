package io.pointsman.engine.tablet;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowSubType;
import io.pointsman.engine.mysql.WorkflowType;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class VReplicationStatementsTest {
  @Test
  void quotesEverythingMySqlTreatsSpecially() {
    assertThat(VReplicationStatements.sqlString("it's \"a\"\\\n\0")).isEqualTo("'it\\'s \\\"a\\\"\\\\\\n\\0'");
  }

  @Test
  void insertsAStoppedStreamWithTheSourceInProtobufTextForm() {
    BinlogSource source = BinlogSource.of("customer", "-80",
        BinlogSource.Filter.of(new BinlogSource.Rule("customer", "select * from customer")));
    String sql = VReplicationStatements.insertStream("wf_reverse", source, "MariaDB/0-200-7", StreamState.STOPPED,
        "vt_commerce", WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, Clock.fixed(Instant.ofEpochSecond(1700000000), ZoneOffset.UTC));
    assertThat(sql).startsWith("insert into _vt.vreplication (workflow, source, pos, ")
        .contains("'wf_reverse', 'keyspace: \\\"customer\\\" shard: \\\"-80\\\" filter { rules { match: \\\"customer\\\" "
            + "filter: \\\"select * from customer\\\" } }', 'MariaDB/0-200-7'")
        .contains(", 1700000000, 0, 'Stopped', 'vt_commerce', 1, 0, '{}')");
  }
}
