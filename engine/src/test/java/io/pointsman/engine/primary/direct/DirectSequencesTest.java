package io.pointsman.engine.primary.direct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.PrimaryTerm;
import io.pointsman.api.model.SequenceMetadata;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.JournalTimes;
import io.pointsman.engine.mysql.MySqlFence;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.mysql.PrimaryPositions;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.mysql.ReshardingJournals;
import io.pointsman.engine.mysql.SavedStreams;
import io.pointsman.engine.mysql.SidecarSchema;
import io.pointsman.engine.mysql.StreamWaiter;
import io.pointsman.engine.mysql.TableDrops;
import io.pointsman.engine.mysql.VReplicationStreams;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.testing.EtcdTestFixture;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sequences on a primary's MariaDB, as the sandbox's switch initializes them: the highest ids of the
 * using tables, and a sequence row that moves up past them but never down.
 */
class DirectSequencesTest extends EtcdTestFixture {
  private static final TabletAlias PRIMARY = new TabletAlias("zone1", 100);
  private static final ShardRef SHARD = new ShardRef("commerce", "0");
  private static final SequenceMetadata CUSTOMER = new SequenceMetadata("customer", "customer_id", "commerce",
      "customer_seq");
  private static final SequenceMetadata ORDER = new SequenceMetadata("corder", "order_id", "commerce", "customer_seq");

  private final String db = "seq_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  private ConnectionPools pools;
  private DirectSequences sequences;

  DirectSequencesTest() {
    super(Part.STORE);
  }

  @BeforeEach
  void primary() throws SQLException {
    store.create(store.keys().keyspace("commerce"), Keyspace.normal());
    store.create(store.keys().shard("commerce", "0"), Shard.of(KeyRange.FULL, PRIMARY, true));
    store.create(store.keys().tablet(PRIMARY), new Tablet(PRIMARY, "localhost", Map.of(), "commerce", "0",
        KeyRange.FULL, TabletType.PRIMARY, db, TestServices.mysqlHost(), TestServices.mysqlPort()));
    exec("create database " + db,
        "create table " + db + ".customer(customer_id bigint primary key)",
        "create table " + db + ".corder(order_id bigint primary key)",
        "create table " + db + ".customer_seq(id int, next_id bigint, cache bigint, primary key(id))");
    pools = new ConnectionPools(MySqlOptions.builder().user(TestServices.mysqlUser())
        .password(TestServices.mysqlPassword()).tlsMode(MySqlOptions.TlsMode.DISABLED).poolSize(2)
        .connectTimeout(Duration.ofSeconds(5)).build());
    SidecarSchema schema = new SidecarSchema(pools);
    MySqlFence fence = new MySqlFence(pools, schema);
    VReplicationStreams streams = new VReplicationStreams(pools, fence, schema);
    sequences = new DirectSequences(new DirectPort.Shared(new PrimaryResolver(store), streams,
        new SavedStreams(pools, fence, schema), new StreamWaiter(streams), new PrimaryPositions(pools),
        new ReshardingJournals(pools, fence, schema), new JournalTimes(pools, schema), new WriteBarrier(pools, fence),
        new TableDrops(pools, fence), pools));
  }

  @AfterEach
  void drop() throws SQLException {
    pools.close();
    exec("drop database if exists " + db);
  }

  @Test
  void theHighestIdOfTablesSharingASequenceIsTheHighestOfThemAndAnEmptyTableCountsAsZero() throws SQLException {
    assertThat(sequences.maxValues(SHARD, List.of(CUSTOMER))).containsExactly(Map.entry("customer_seq", 0L));
    exec("insert into " + db + ".customer values (1), (40)", "insert into " + db + ".corder values (7), (300)");
    assertThat(sequences.maxValues(SHARD, List.of(CUSTOMER, ORDER))).containsExactly(Map.entry("customer_seq", 300L));
  }

  @Test
  void theSequenceRowIsCreatedPastTheHighestIdAndNeverMovedDown() throws SQLException {
    assertThat(sequences.nextValue(SHARD, "customer_seq")).isEqualTo(OptionalLong.empty());
    sequences.updateSequenceTables(SHARD, Map.of("customer_seq", 500L));
    assertThat(sequences.nextValue(SHARD, "customer_seq")).isEqualTo(OptionalLong.of(501));
    exec("update " + db + ".customer_seq set next_id = 2000 where id = 0");
    sequences.updateSequenceTables(SHARD, Map.of("customer_seq", 500L));
    assertThat(sequences.nextValue(SHARD, "customer_seq")).as("never lowered").isEqualTo(OptionalLong.of(2000));
  }

  /**
   * A ref bound to a planned primary (a write switch's) is refused when the Shard record names
   * another, from the same read that gives the port its address, before any statement runs there.
   */
  @Test
  void aRefExpectingAnotherPrimaryIsRefusedBeforeAnyStatement() throws SQLException {
    ShardRef planned = SHARD.expecting(new PrimaryTerm(PRIMARY.toString(), ""));
    assertThat(sequences.nextValue(planned, "customer_seq")).as("the planned primary").isEqualTo(OptionalLong.empty());

    ShardRef other = SHARD.expecting(new PrimaryTerm("zone1-0000000101", ""));
    assertThatThrownBy(() -> sequences.updateSequenceTables(other, Map.of("customer_seq", 500L)))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageContaining("the primary of commerce/0 changed during the switch");
    assertThat(sequences.nextValue(SHARD, "customer_seq")).as("nothing written").isEqualTo(OptionalLong.empty());
  }

  private static void exec(String... statements) throws SQLException {
    try (Connection c = TestServices.mysqlConnection(); Statement st = c.createStatement()) {
      for (String sql : statements) {
        st.execute(sql);
      }
    }
  }
}
