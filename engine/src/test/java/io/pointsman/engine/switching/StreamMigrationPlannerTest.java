package io.pointsman.engine.switching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.model.MigratedStream;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.model.StreamRef;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.SidecarText;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowSubType;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.switching.OtherWorkflowStreams.Located;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamMigrationPlannerTest {
  private static final MigrationInfo RESHARD = new MigrationInfo("cust2cust", "customer", "customer",
      MigrationType.SHARDS, List.of("customer"), List.of("-80", "80-"), List.of("-40", "40-80", "80-c0", "c0-"),
      List.of(new StreamRef("-40", 1, "-80")), 1, false);
  private static final VSchema VSCHEMA = new VSchema(true, Map.of(), Map.of(
      "product_copy", VSchemaTable.plain(), "countries", new VSchemaTable("reference", List.of(), null, null)));
  private static final String POS = "MariaDB/0-100-42";

  @Test
  void everyOtherRunningStreamIsPlannedWithItsSourceAndPosition() {
    List<Located> found = List.of(
        on("80-", mat(11, StreamState.RUNNING, "")),
        on("-80", mat(10, StreamState.RUNNING, "")),
        on("-80", stream(12, "cust2cust_reverse", "customer", StreamState.STOPPED, "", "product_copy")),
        on("-80", stream(13, "refs", "commerce", StreamState.RUNNING, "", "countries")));
    StreamMigration plan = StreamMigrationPlanner.plan(RESHARD, found, VSCHEMA);
    assertThat(plan.workflows()).containsExactly("mat");
    assertThat(plan.streams()).extracting(MigratedStream::shard, MigratedStream::id)
        .containsExactly(tuple("-80", 10L), tuple("80-", 11L));
    MigratedStream first = plan.streams().get(0);
    assertThat(first.pos()).isEqualTo(POS);
    assertThat(SidecarText.decodeSource("planned", first.source()))
        .isEqualTo(mat(10, StreamState.RUNNING, "").source());
    assertThat(first.dbName()).isEqualTo("vt_customer");
  }

  @Test
  void aMoveTablesOrAReshardWithoutOtherStreamsMigratesNothing() {
    MigrationInfo moveTables = new MigrationInfo("c2c", "commerce", "customer", MigrationType.TABLES,
        List.of("customer"), List.of("0"), List.of("-80"), List.of(), 2, false);
    assertThat(StreamMigrationPlanner.plan(moveTables, List.of(on("0", mat(1, StreamState.RUNNING, ""))), VSCHEMA))
        .isEqualTo(StreamMigration.NONE);
    assertThat(StreamMigrationPlanner.plan(RESHARD, List.of(), VSCHEMA).isEmpty()).isTrue();
  }

  @Test
  void whatCannotBeMigratedIsRefusedNamingTheStreamAndWhy() {
    assertRefused(List.of(on("-80", mat(10, StreamState.STOPPED, "")), on("80-", mat(11, StreamState.RUNNING, ""))),
        "workflow mat on shard -80 (stream 10) is Stopped, not Running: start it or delete it first");
    assertRefused(List.of(on("-80", stream(10, "self", "customer", StreamState.RUNNING,
        "select * from product_copy where in_keyrange('-80')", "product_copy"))),
        "reads from keyspace customer itself, an intra-keyspace materialization");
    assertRefused(List.of(on("-80", stream(10, "mat", "commerce", StreamState.RUNNING, "select * from product_copy",
        "product_copy"))), "cannot be pointed at the new shards: rule product_copy's filter has no in_keyrange(...)");
    assertRefused(List.of(on("-80", stream(10, "mat", "commerce", StreamState.RUNNING, "select * from gone", "gone"))),
        "has a rule for table gone, which is not in the VSchema of customer");
    assertRefused(List.of(on("-80", mat(10, StreamState.RUNNING, ""))),
        "the source shards run different streams: -80 runs [mat from commerce/0], 80- runs []");
  }

  /** A MoveTables into the keyspace, switched and not completed: its copies move FROZEN. */
  @Test
  void frozenStreamsAreMigratedFrozenWhenTheyStoppedAtOnePosition() {
    StreamMigration plan = StreamMigrationPlanner.plan(RESHARD, List.of(
        on("-80", mat(10, StreamState.STOPPED, "FROZEN")), on("80-", mat(11, StreamState.STOPPED, "FROZEN"))), VSCHEMA);
    assertThat(plan.streams()).extracting(MigratedStream::frozen).containsExactly(true, true);

    Stream apart = stream(11, "mat", "commerce", StreamState.STOPPED,
        "select pid, name from product where in_keyrange(pid, 'hash', '-')", "product_copy", "FROZEN");
    assertRefused(List.of(on("-80", mat(10, StreamState.STOPPED, "FROZEN")),
        on("80-", new Stream(apart.id(), apart.workflow(), apart.source(), Position.parse("MariaDB/0-100-40"),
            Position.ZERO, StreamState.STOPPED, "FROZEN", "vt_customer", "", "", Instant.EPOCH, Instant.EPOCH,
            Instant.EPOCH, 0, WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "{}", false))),
        "the FROZEN streams of workflow mat stopped at different positions (MariaDB/0-100-42, MariaDB/0-100-40)");
  }

  @Test
  void aStreamNamedAsTheReshardIsRefusedAsVitessRefusesIt() {
    PointsmanException e = catchThrowableOfType(() -> StreamMigrationPlanner.plan(RESHARD,
        List.of(on("-80", stream(10, "cust2cust", "commerce", StreamState.RUNNING, "", "product_copy"))), VSCHEMA),
        PointsmanException.class);
    assertThat(e.getMessage()).contains("run streams named cust2cust too");
  }

  private static void assertRefused(List<Located> found, String why) {
    PointsmanException e = catchThrowableOfType(() -> StreamMigrationPlanner.plan(RESHARD, found, VSCHEMA),
        PointsmanException.class);
    assertThat(e).as("refused: " + why).isNotNull();
    assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(e.getMessage()).startsWith("cannot switch writes of Reshard customer.cust2cust: the streams of other"
        + " workflows on its source shards cannot be migrated to the target shards: ").contains(why)
        .endsWith("; nothing was changed");
  }

  private static Located on(String shard, Stream s) {
    return new Located("customer", shard, s);
  }

  private static Stream mat(int id, StreamState state, String message) {
    return stream(id, "mat", "commerce", state, "select pid, name from product where in_keyrange(pid, 'hash', '-')",
        "product_copy", message);
  }

  private static Stream stream(int id, String workflow, String sourceKeyspace, StreamState state, String filter,
      String table) {
    return stream(id, workflow, sourceKeyspace, state, filter.isEmpty() ? "-80" : filter, table, "");
  }

  private static Stream stream(int id, String workflow, String sourceKeyspace, StreamState state, String filter,
      String table, String message) {
    return new Stream(id, workflow, BinlogSource.of(sourceKeyspace, "0",
        BinlogSource.Filter.of(new BinlogSource.Rule(table, filter))), Position.parse(POS), Position.ZERO, state,
        message, "vt_customer", "", "", Instant.EPOCH, Instant.EPOCH, Instant.EPOCH, 0, WorkflowType.MATERIALIZE,
        WorkflowSubType.NONE, "{}", false);
  }
}
