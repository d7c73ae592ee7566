package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.temporal.client.WorkflowFailedException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code source} that is not Vitess's text format (here the JSON pointsman once wrote) stops a
 * SwitchTraffic at once, naming the row and the message type it should hold, and nothing changes.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class UnreadableSidecarValueTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final String TARGET = "customer";

  @Test
  void aSourceInTheOldJsonFailsTheSwitchNamingTheRowAndChangesNothing() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      CreatedWorkflow created = world.createMoveTables();
      // The runner would put the stream in Error on its next start; keep it from touching the rows.
      world.runner.close();
      CreatedWorkflow.Stream stream = created.streams().get(0);
      PrimaryEndpoint target = world.services.primaries().resolve(TARGET, stream.targetShard());
      try (Connection c = world.services.pools().connection(target); PreparedStatement ps = c.prepareStatement(
          "UPDATE " + target.sidecarDb() + ".vreplication SET source = ? WHERE id = ?")) {
        ps.setString(1, "{\"keyspace\":\"commerce\",\"shard\":\"0\",\"filter\":{\"rules\":[{\"match\":\"customer\"}]}}");
        ps.setLong(2, stream.id());
        assertThat(ps.executeUpdate()).isEqualTo(1);
        if (!c.getAutoCommit()) {
          c.commit();
        }
      }
      WorldSnapshot before = WorldSnapshot.take(world);

      SwitchTrafficWorkflow wf = world.workflow(SwitchTrafficWorkflow.class,
          Pointsman.SWITCH_TRAFFIC + "-" + TARGET + "." + WORKFLOW + "-" + UUID.randomUUID());
      WorkflowFailedException failed = catchThrowableOfType(
          () -> wf.switchTraffic(SwitchTrafficRequest.of(WORKFLOW, TARGET)), WorkflowFailedException.class);

      assertThat(failed).as("SwitchTraffic over an unreadable source").isNotNull();
      StringBuilder messages = new StringBuilder();
      for (Throwable t = failed; t != null; t = t.getCause()) {
        messages.append(t.getMessage()).append(" | ");
      }
      assertThat(messages.toString()).contains(target.sidecarDb() + ".vreplication id " + stream.id()
          + " (workflow " + WORKFLOW + ") on " + target + ": source is not a valid binlogdata.BinlogSource: ");
      assertThat(WorldSnapshot.take(world)).isEqualTo(before);
      assertThat(WorldSnapshot.lockKeys(world)).isEmpty();
    }
  }
}
