package io.pointsman.e2e;

import static io.pointsman.e2e.WorkflowFailures.typedFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.SqlIdentifiers;
import io.pointsman.sandbox.cluster.SandboxLayout;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Reshard whose target streams leave part of the source's key range uncovered (here the target
 * shard 40-80 has none) is refused by SwitchTraffic and its dry run before any lock, naming the
 * gap, with etcd and every primary as before: switching it would leave those rows unserved.
 */
@Timeout(600)
class ReshardCoverageRefusalTest {
  private static final String TARGET = SandboxLayout.CUSTOMER;
  private static final String WORKFLOW = SandboxLayout.RESHARD_WORKFLOW;

  @Test
  void reshardWithAGapInItsTargetShardsIsRefusedAndNothingChanges() throws Exception {
    try (SwitchWorld world = SwitchWorld.start(false, UnaryOperator.identity())) {
      world.createReshard();
      List<String> targets = SandboxLayout.RESHARD_TARGET_SHARDS;
      assertThat(targets).containsExactly("-40", "40-80", "80-c0", "c0-");
      PrimaryEndpoint ep = world.services.primaries().resolve(TARGET, "40-80");
      try (Connection c = world.services.pools().connection(ep);
          PreparedStatement ps = c.prepareStatement("DELETE FROM " + SqlIdentifiers.qualified(ep.sidecarDb(),
              "vreplication") + " WHERE workflow = ?")) {
        ps.setString(1, WORKFLOW);
        assertThat(ps.executeUpdate()).isPositive();
      }
      WorldSnapshot before = WorldSnapshot.take(world);
      SwitchTrafficRequest request = SwitchTrafficRequest.of(WORKFLOW, TARGET);
      for (SwitchTrafficRequest r : List.of(request.withDryRun(true), request)) {
        WorkflowFailedException failed = null;
        try {
          world.workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-gap-" + UUID.randomUUID()).switchTraffic(r);
        } catch (WorkflowFailedException e) {
          failed = e;
        }
        assertThat(failed).as("refused, dry run " + r.dryRun()).isNotNull();
        ApplicationFailure cause = typedFailure(failed);
        assertThat(cause.getType()).isEqualTo(ErrorCode.FAILED_PRECONDITION.name());
        assertThat(cause.isNonRetryable()).isTrue();
        assertThat(cause.getOriginalMessage())
            .startsWith("workflow customer." + WORKFLOW + " reshards source shards")
            .contains("into target shards [-40, 80-c0, c0-] (gap between -40 and 80-c0)")
            .endsWith("they must cover the same key range without gap or overlap; nothing was changed");
      }
      before.assertNothingChangedIn(world, "nothing changed");
    }
  }
}
