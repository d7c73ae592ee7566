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
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Shard;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class UnsupportedWorkflowsTest {
  private static final Map<String, Map<String, Shard>> TOPO = Map.of(
      "commerce", ranges("0"),
      "customer", ranges("-80", "80-", "-40", "40-80", "80-c0", "c0-"),
      "product", serving(ranges("-80", "80-", "-40", "40-80", "80-c0", "c0-"), "-80", "80-"));

  @Test
  void aFullMoveTablesAndAnExactReshardPass() {
    assertThatCode(() -> check(moveTables(List.of("-80", "80-", "-40", "40-80", "80-c0", "c0-")),
        streams(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "", "customer")))
        .doesNotThrowAnyException();
    assertThatCode(() -> check(reshard(List.of("-80", "80-"), List.of("-40", "40-80", "80-c0", "c0-")),
        streams(WorkflowType.RESHARD, WorkflowSubType.NONE, "", "customer")))
        .doesNotThrowAnyException();
  }

  @Test
  void partialMoveTablesIsRefusedNamingItsShards() {
    PointsmanException e = refused(moveTables(List.of("-80")),
        streams(WorkflowType.MOVE_TABLES, WorkflowSubType.PARTIAL, "", "customer"));
    assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(e.getMessage()).isEqualTo("workflow customer.commerce2customer is a partial MoveTables (shards [-80]);"
        + " pointsman does not switch partial MoveTables yet: use vtctldclient; nothing was changed");
  }

  @Test
  void moveTablesOnASubsetOfTargetShardsIsRefusedEvenWithoutTheSubType() {
    PointsmanException e = refused(moveTables(List.of("-80", "80-")),
        streams(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "", "customer"));
    assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(e.getMessage()).contains("runs on target shards [-80, 80-] of customer's serving [-40, -80, 40-80, 80-, 80-c0,"
        + " c0-]").endsWith("nothing was changed");
  }

  @Test
  void shardForShardMoveTablesOverPartOfTheKeySpaceIsPartialAsVitessDecides() {
    MigrationInfo info = new MigrationInfo("commerce2customer", "commerce", "customer", MigrationType.TABLES,
        List.of("customer"), List.of("-80"), List.of("-80"), List.of(new StreamRef("-80", 1, "-80")), 1, false);
    Function<String, Map<String, Shard>> topo = ks -> ranges("-80", "80-");
    PointsmanException e = catchThrowableOfType(() -> UnsupportedWorkflows.check(info,
        streams(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "", "customer"), topo), PointsmanException.class);
    assertThat(e.getMessage()).contains("is a partial MoveTables (shards [-80])");
  }

  @Test
  void aFrozenMoveTablesMayBeCompletedAfterTheTargetGainedShards() {
    MigrationInfo frozen = moveTables("customer", List.of("-80", "80-"), true);
    assertThatCode(() -> check(frozen, streams(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "", "customer")))
        .doesNotThrowAnyException();
  }

  @Test
  void shardsAReshardIsFillingDoNotCountForAMoveTablesIntoTheKeyspace() {
    MigrationInfo info = moveTables("product", List.of("-80", "80-"), false);
    assertThatCode(() -> check(info, streams(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "", "customer")))
        .doesNotThrowAnyException();
  }

  @Test
  void multiTenantMoveTablesIsRefusedNamingTheTenant() {
    PointsmanException e = refused(moveTables(List.of("-80", "80-", "-40", "40-80", "80-c0", "c0-")),
        streams(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "{\"tenant_id\":\"42\",\"shards\":[]}",
            "customer"));
    assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(e.getMessage()).startsWith("workflow customer.commerce2customer is a multi-tenant MoveTables (tenant 42)")
        .contains("keyspace routing rules").endsWith("nothing was changed");
  }

  @Test
  void unreadableOptionsAreRefusedNotGuessed() {
    PointsmanException e = refused(moveTables(List.of("-80", "80-", "-40", "40-80", "80-c0", "c0-")),
        streams(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "{tenant", "customer"));
    assertThat(e.getMessage()).contains("options that are not JSON");
  }

  @Test
  void migrateIsRefusedAsInvalidArgument() {
    PointsmanException e = refused(moveTables(List.of("-80", "80-", "-40", "40-80", "80-c0", "c0-")),
        streams(WorkflowType.MIGRATE, WorkflowSubType.NONE, "", "customer"));
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(e.getMessage()).startsWith("workflow customer.commerce2customer is a Migrate workflow:")
        .contains("no SwitchTraffic").endsWith("nothing was changed");
  }

  @Test
  void wildcardTablesAreRefused() {
    MigrationInfo info = moveTables(List.of("-80", "80-", "-40", "40-80", "80-c0", "c0-"));
    List<Stream> streams = List.of(stream(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "",
        BinlogSource.of("commerce", "0", BinlogSource.Filter.of(new BinlogSource.Rule("/.*", "")))));
    PointsmanException e = refused(info, streams);
    assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(e.getMessage()).contains("[/.*]").contains("wildcard");
  }

  @Test
  void reshardWithAGapOrAnOverlapIsRefused() {
    List<Stream> streams = streams(WorkflowType.RESHARD, WorkflowSubType.NONE, "", "customer");
    PointsmanException gap = refused(reshard(List.of("-80", "80-"), List.of("-40", "80-c0", "c0-")), streams);
    assertThat(gap.getMessage()).contains("gap between -40 and 80-c0").contains("without gap or overlap");
    PointsmanException overlap = refused(reshard(List.of("-80", "80-"), List.of("-40", "-80", "80-")), streams);
    assertThat(overlap.getMessage()).contains("overlap of -40 and -80");
    PointsmanException less = refused(reshard(List.of("-80", "80-"), List.of("-40", "40-80")), streams);
    assertThat(less.getMessage()).contains("covering -").contains("covering -80");
  }

  @Test
  void coverageJoinsAdjacentRanges() {
    Map<String, KeyRange> r = Map.of("-40", KeyRange.ofShard("-40"), "40-80", KeyRange.ofShard("40-80"),
        "80-c0", KeyRange.ofShard("80-c0"));
    assertThat(UnsupportedWorkflows.coverage(List.of("80-c0", "-40", "40-80"), r)).isEqualTo("-c0");
    assertThat(UnsupportedWorkflows.coverage(List.of("0"), Map.of())).isEqualTo("-");
  }

  @Test
  void ignoringTheSourceTheCheckNeverAsksForTheSourceKeyspacesShards() {
    List<String> asked = new java.util.ArrayList<>();
    Function<String, Map<String, Shard>> gone = ks -> {
      asked.add(ks);
      if (ks.equals("commerce")) {
        throw new AssertionError("the source keyspace's shards were read");
      }
      return TOPO.get(ks);
    };
    MigrationInfo info = moveTables(List.of("-80", "80-", "-40", "40-80", "80-c0", "c0-"));
    assertThatCode(() -> UnsupportedWorkflows.checkIgnoringSource(info,
        streams(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "", "customer"), gone)).doesNotThrowAnyException();
    assertThat(asked).containsExactly("customer");
  }

  @Test
  void ignoringTheSourceWhatTheTargetShowsIsStillRefused() {
    Function<String, Map<String, Shard>> topo = TOPO::get;
    List<Stream> plain = streams(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "", "customer");
    PointsmanException partial = catchThrowableOfType(() -> UnsupportedWorkflows.checkIgnoringSource(
        moveTables(List.of("-80")), streams(WorkflowType.MOVE_TABLES, WorkflowSubType.PARTIAL, "", "customer"), topo),
        PointsmanException.class);
    assertThat(partial.getMessage()).contains("is a partial MoveTables (shards [-80])");
    PointsmanException subset = catchThrowableOfType(() -> UnsupportedWorkflows.checkIgnoringSource(
        moveTables(List.of("-80", "80-")), plain, topo), PointsmanException.class);
    assertThat(subset.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(subset.getMessage()).contains("runs on target shards [-80, 80-] of customer's serving [-40, -80, 40-80,"
        + " 80-, 80-c0, c0-]").endsWith("nothing was changed");
    assertThatCode(() -> UnsupportedWorkflows.checkIgnoringSource(moveTables("customer", List.of("-80", "80-"), true),
        plain, topo)).as("frozen: only Complete is left, which may follow new target shards")
        .doesNotThrowAnyException();
    List<Stream> wildcard = List.of(stream(WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "",
        BinlogSource.of("commerce", "0", BinlogSource.Filter.of(new BinlogSource.Rule("/.*", "")))));
    PointsmanException wild = catchThrowableOfType(() -> UnsupportedWorkflows.checkIgnoringSource(
        moveTables(List.of("-80", "80-", "-40", "40-80", "80-c0", "c0-")), wildcard, topo), PointsmanException.class);
    assertThat(wild.getMessage()).contains("[/.*]").contains("wildcard");
    PointsmanException migrate = catchThrowableOfType(() -> UnsupportedWorkflows.checkIgnoringSource(
        moveTables(List.of("-80", "80-", "-40", "40-80", "80-c0", "c0-")),
        streams(WorkflowType.MIGRATE, WorkflowSubType.NONE, "", "customer"), topo), PointsmanException.class);
    assertThat(migrate.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  private static PointsmanException refused(MigrationInfo info, List<Stream> streams) {
    return catchThrowableOfType(() -> check(info, streams), PointsmanException.class);
  }

  private static void check(MigrationInfo info, List<Stream> streams) {
    Function<String, Map<String, Shard>> topo = TOPO::get;
    UnsupportedWorkflows.check(info, streams, topo);
  }

  private static MigrationInfo moveTables(List<String> targetShards) {
    return moveTables("customer", targetShards, false);
  }

  /** {@code commerce2<target>}, moving the customer table from commerce/0 into the target's shards. */
  private static MigrationInfo moveTables(String targetKeyspace, List<String> targetShards, boolean frozen) {
    return new MigrationInfo("commerce2" + targetKeyspace, "commerce", targetKeyspace, MigrationType.TABLES,
        List.of("customer"), List.of("0"), targetShards.stream().sorted(MigrationReader.SHARD_ORDER).toList(),
        List.of(new StreamRef(targetShards.get(0), 1, "0")), 1, frozen);
  }

  private static MigrationInfo reshard(List<String> sourceShards, List<String> targetShards) {
    return new MigrationInfo("cust2cust", "customer", "customer", MigrationType.SHARDS, List.of("customer"),
        sourceShards, targetShards, List.of(new StreamRef(targetShards.get(0), 1, sourceShards.get(0))), 1, false);
  }

  private static List<Stream> streams(WorkflowType type, WorkflowSubType sub, String options, String table) {
    return List.of(stream(type, sub, options,
        BinlogSource.of("commerce", "0", BinlogSource.Filter.of(new BinlogSource.Rule(table, "select * from "
            + table)))));
  }

  private static Stream stream(WorkflowType type, WorkflowSubType sub, String options, BinlogSource source) {
    return new Stream(1, "commerce2customer", source, Position.ZERO, Position.ZERO, StreamState.RUNNING, "",
        "vt_customer", "", "", Instant.EPOCH, Instant.EPOCH, Instant.EPOCH, 0, type, sub, options, false);
  }

  /** Shards, every one serving. */
  private static Map<String, Shard> ranges(String... shards) {
    Map<String, Shard> out = new TreeMap<>();
    for (String s : shards) {
      out.put(s, Shard.of(KeyRange.ofShard(s), null, true));
    }
    return out;
  }

  /** The shards with only {@code servingNames} serving. */
  private static Map<String, Shard> serving(Map<String, Shard> shards, String... servingNames) {
    Map<String, Shard> out = new TreeMap<>();
    List<String> names = List.of(servingNames);
    shards.forEach((n, s) -> out.put(n, s.withPrimaryServing(names.contains(n))));
    return out;
  }
}
