package io.pointsman.engine.switching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamRef;
import io.pointsman.engine.mysql.BinlogSource;
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

class OtherWorkflowStreamsTest {
  private static final MigrationInfo RESHARD = new MigrationInfo("cust2cust", "customer", "customer",
      MigrationType.SHARDS, List.of("customer"), List.of("-80", "80-"), List.of("-40", "40-80", "80-c0", "c0-"),
      List.of(new StreamRef("-40", 1, "-80")), 1, false);
  private static final VSchema VSCHEMA = new VSchema(true, Map.of(), Map.of(
      "customer", VSchemaTable.plain(), "countries", new VSchemaTable("reference", List.of(), null, null)));

  @Test
  void theReshardsOwnAndReverseStreamsDoNotCount() {
    List<Located> own = List.of(
        on("customer", "-80", stream("cust2cust_reverse", "customer", "-40", "customer")),
        on("customer", "-40", stream("cust2cust", "customer", "-80", "customer")),
        on("customer", "80-c0", stream("cust2cust", "customer", "80-", "customer")));
    assertNeitherCheckRefuses(RESHARD, own);
  }

  @Test
  void aWriteSwitchIsRefusedNamingEachOtherWorkflowAndItsSourceShards() {
    List<Located> found = List.of(
        on("customer", "80-", stream("mat", "commerce", "0", "customer")),
        on("customer", "-80", stream("mat", "commerce", "0", "customer")),
        on("customer", "-80", stream("lookup", "commerce", "0", "customer")));
    PointsmanException e = writeSwitchRefusal(found);
    assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(e.getMessage()).isEqualTo("cannot switch writes of Reshard customer.cust2cust: the primaries of its"
        + " source shards [-80, 80-] run streams of other workflows (workflow lookup on shards [-80], workflow mat"
        + " on shards [-80, 80-]), which Vitess's SwitchTraffic stops and recreates on the target shards;"
        + " pointsman cannot migrate them yet: switch with vtctldclient, or stop and delete those workflows first;"
        + " nothing was changed");
  }

  @Test
  void aStreamOnASourceShardNamedAsTheReshardIsRefusedAsVitessRefusesIt() {
    List<Located> found = List.of(on("customer", "80-", stream("cust2cust", "commerce", "0", "customer")));
    PointsmanException e = writeSwitchRefusal(found);
    assertThat(e.getMessage()).isEqualTo("cannot switch writes of Reshard customer.cust2cust: its source shards [80-]"
        + " run streams named cust2cust too, the Reshard's own name; delete or rename them first; nothing was changed");
  }

  @Test
  void streamsOfReferenceTablesOnlyAreLeftAsVitessLeavesThem() {
    List<Located> found = List.of(on("customer", "-80", stream("ref", "commerce", "0", "countries")));
    assertThatCode(() -> OtherWorkflowStreams.checkWriteSwitch(RESHARD, found, VSCHEMA)).doesNotThrowAnyException();
    List<Located> mixed = List.of(on("customer", "-80", stream("ref", "commerce", "0", "countries", "customer")));
    assertThat(writeSwitchRefusal(mixed)).hasMessageContaining("workflow ref on shards [-80]");
  }

  @Test
  void aMoveTablesIsNeverRefusedForStreamsItDoesNotMigrate() {
    MigrationInfo moveTables = new MigrationInfo("commerce2customer", "commerce", "customer", MigrationType.TABLES,
        List.of("customer"), List.of("0"), List.of("-80", "80-"), List.of(new StreamRef("-80", 1, "0")), 1, false);
    List<Located> found = List.of(on("commerce", "0", stream("other", "lookup", "0", "customer")));
    assertNeitherCheckRefuses(moveTables, found);
  }

  @Test
  void completeIsRefusedWhileStreamsElsewhereReadFromTheSourceShards() {
    List<Located> found = List.of(
        on("analytics", "0", stream("customer2analytics", "customer", "80-", "customer")),
        on("analytics", "0", stream("customer2analytics", "customer", "-80", "customer")),
        // reads a target shard: it loses nothing
        on("analytics", "0", stream("fresh", "customer", "-40", "customer")));
    PointsmanException e = deletionRefusal(found);
    assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(e.getMessage()).isEqualTo("cannot complete Reshard customer.cust2cust: deleting its source shards"
        + " customer [-80, 80-] would strand them: streams of other workflows read from them (workflow"
        + " analytics.customer2analytics from shards [-80, 80-]); move or delete those workflows first"
        + " (vtctldclient); nothing was changed");
  }

  @Test
  void completeIsRefusedWhileOtherStreamsRunOnTheSourceShards() {
    List<Located> found = List.of(on("customer", "80-", stream("mat", "commerce", "0", "customer")),
        on("customer", "80-c0", stream("mat", "commerce", "0", "customer")));
    PointsmanException e = deletionRefusal(found);
    assertThat(e.getMessage()).contains("streams of other workflows run on them (workflow mat on shards [80-])")
        .doesNotContain("read from");
  }

  private static void assertNeitherCheckRefuses(MigrationInfo w, List<Located> streams) {
    assertThatCode(() -> OtherWorkflowStreams.checkWriteSwitch(w, streams, VSCHEMA)).doesNotThrowAnyException();
    assertThatCode(() -> OtherWorkflowStreams.checkSourceShardsDeletion(w, streams)).doesNotThrowAnyException();
  }

  private static PointsmanException writeSwitchRefusal(List<Located> streams) {
    return catchThrowableOfType(() -> OtherWorkflowStreams.checkWriteSwitch(RESHARD, streams, VSCHEMA),
        PointsmanException.class);
  }

  private static PointsmanException deletionRefusal(List<Located> streams) {
    return catchThrowableOfType(() -> OtherWorkflowStreams.checkSourceShardsDeletion(RESHARD, streams),
        PointsmanException.class);
  }

  private static Located on(String keyspace, String shard, Stream s) {
    return new Located(keyspace, shard, s);
  }

  private static Stream stream(String workflow, String sourceKeyspace, String sourceShard, String... tables) {
    BinlogSource.Rule[] rules = new BinlogSource.Rule[tables.length];
    for (int i = 0; i < tables.length; i++) {
      rules[i] = new BinlogSource.Rule(tables[i], "select * from " + tables[i]);
    }
    return new Stream(7, workflow, BinlogSource.of(sourceKeyspace, sourceShard, BinlogSource.Filter.of(rules)),
        Position.ZERO, Position.ZERO, StreamState.RUNNING, "", "vt_customer", "", "", Instant.EPOCH, Instant.EPOCH,
        Instant.EPOCH, 0, WorkflowType.MATERIALIZE, WorkflowSubType.NONE, "", false);
  }
}
