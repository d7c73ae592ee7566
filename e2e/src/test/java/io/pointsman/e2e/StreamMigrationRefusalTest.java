package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.WorkflowFailures.typedFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.SidecarText;
import io.pointsman.engine.mysql.SqlIdentifiers;
import io.pointsman.sandbox.cluster.SandboxLayout;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream of another workflow on a Reshard's source shards that cannot be migrated (stopped, as a
 * workflow's create leaves it, so no undo could tell it from one the migration stopped):
 * SwitchTraffic and its dry run refuse before any change, naming the workflow, shard and why. Once
 * switched, Complete refuses to delete source shards that another workflow's stream still reads from. etcd and every primary stay as they were.
 */
@Timeout(600)
class StreamMigrationRefusalTest {
  private static final String KS = SandboxLayout.CUSTOMER;
  private static final String WORKFLOW = SandboxLayout.RESHARD_WORKFLOW;

  @Test
  void otherWorkflowsStreamsOnTheSourceShardsAreRefusedAndNothingChanges() throws Exception {
    try (SwitchWorld world = SwitchWorld.start(false, UnaryOperator.identity())) {
      world.createReshard();
      assertThat(SandboxLayout.RESHARD_SOURCE_SHARDS).containsExactly("-80", "80-");
      int foreign = insertStream(world, KS, "80-", "mat_orders", "commerce", "0");

      WorldSnapshot before = WorldSnapshot.take(world);
      SwitchTrafficRequest request = SwitchTrafficRequest.of(WORKFLOW, KS);
      for (SwitchTrafficRequest r : List.of(request.withDryRun(true), request)) {
        ApplicationFailure cause = refused(() -> world.workflow(SwitchTrafficWorkflow.class,
            "SwitchTraffic-streams-" + UUID.randomUUID()).switchTraffic(r), "dry run " + r.dryRun());
        assertThat(cause.getOriginalMessage()).isEqualTo("cannot switch writes of Reshard customer." + WORKFLOW
            + ": the streams of other workflows on its source shards cannot be migrated to the target shards:"
            + " workflow mat_orders on shard 80- (stream " + foreign + ") is Stopped, not Running: start it or"
            + " delete it first; nothing was changed");
      }
      before.assertNothingChangedIn(world, "nothing changed");

      // without it the switch goes through; then a reader of a source shard holds Complete back
      deleteStream(world, KS, "80-", foreign);
      ActionResult switched = world.workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-" + UUID.randomUUID())
          .switchTraffic(request);
      assertThat(switched.currentState()).isEqualTo(ALL_SWITCHED);
      insertStream(world, "commerce", "0", "customer2commerce", KS, "-80");

      WorldSnapshot beforeComplete = WorldSnapshot.take(world);
      CompleteRequest complete = CompleteRequest.of(WORKFLOW, KS);
      for (CompleteRequest r : List.of(complete.with(false, false, false, true), complete)) {
        ApplicationFailure cause = refused(() -> world.workflow(CompleteMigrationWorkflow.class,
            "Complete-streams-" + UUID.randomUUID()).complete(r), "complete, dry run " + r.dryRun());
        assertThat(cause.getOriginalMessage()).isEqualTo("cannot complete Reshard customer." + WORKFLOW
            + ": deleting its source shards customer [-80, 80-] would strand them: streams of other workflows read"
            + " from them (workflow commerce.customer2commerce from shards [-80]); move or delete those workflows"
            + " first (vtctldclient); nothing was changed");
      }
      beforeComplete.assertNothingChangedIn(world, "nothing changed by Complete");
    }
  }

  /**
   * A stopped stream of another workflow, as its create would leave it before starting it: stopped,
   * so no player runs it and the snapshots compare it as written.
   */
  private static int insertStream(SwitchWorld world, String keyspace, String shard, String workflow,
      String sourceKeyspace, String sourceShard) throws Exception {
    PrimaryEndpoint ep = world.services.primaries().resolve(keyspace, shard);
    BinlogSource source = BinlogSource.of(sourceKeyspace, sourceShard,
        BinlogSource.Filter.of(new BinlogSource.Rule("corder", "select * from corder")));
    try (Connection c = world.services.pools().connection(ep);
        PreparedStatement ps = c.prepareStatement("INSERT INTO " + SqlIdentifiers.qualified(ep.sidecarDb(),
            "vreplication") + " (workflow, source, pos, max_tps, max_replication_lag, cell, tablet_types,"
            + " time_updated, transaction_timestamp, state, message, db_name, workflow_type, workflow_sub_type, options)"
            + " VALUES (?, ?, '', 9223372036854775807, 9223372036854775807, '', '', 0, 0, 'Stopped', '', ?, 0, 0, '{}')",
            PreparedStatement.RETURN_GENERATED_KEYS)) {
      ps.setString(1, workflow);
      ps.setBytes(2, SidecarText.encodeSource(source).getBytes(StandardCharsets.UTF_8));
      ps.setString(3, ep.dbName());
      assertThat(ps.executeUpdate()).isEqualTo(1);
      try (var keys = ps.getGeneratedKeys()) {
        keys.next();
        return keys.getInt(1);
      }
    }
  }

  private static void deleteStream(SwitchWorld world, String keyspace, String shard, int id) throws Exception {
    PrimaryEndpoint ep = world.services.primaries().resolve(keyspace, shard);
    try (Connection c = world.services.pools().connection(ep);
        PreparedStatement ps = c.prepareStatement("DELETE FROM " + SqlIdentifiers.qualified(ep.sidecarDb(),
            "vreplication") + " WHERE id = ?")) {
      ps.setInt(1, id);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  private static ApplicationFailure refused(Runnable action, String what) {
    WorkflowFailedException failed = null;
    try {
      action.run();
    } catch (WorkflowFailedException e) {
      failed = e;
    }
    assertThat(failed).as("refused, " + what).isNotNull();
    ApplicationFailure af = typedFailure(failed);
    assertThat(af.getType()).isEqualTo(ErrorCode.FAILED_PRECONDITION.name());
    assertThat(af.isNonRetryable()).isTrue();
    return af;
  }
}
