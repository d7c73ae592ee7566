package io.pointsman.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.MigratedStream;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.model.StreamRef;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.temporal.client.WorkflowFailedException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Reshard's write switch migrates other workflows' streams on its source shards in Vitess's order
 * (docs/stream-migration.md), names them in the journal, finalizes them after routing, and undoes
 * the migration when the switch fails before the journal. Mocked activities.
 */
@Timeout(60)
class StreamMigrationSwitchTest {
  private static final MigrationInfo RESHARD = new MigrationInfo("cust2cust", "customer", "customer",
      MigrationType.SHARDS, List.of(), List.of("0"), List.of("-80", "80-"),
      List.of(new StreamRef("-80", 1, "0"), new StreamRef("80-", 1, "0")), 7, false);
  private static final WorkflowState NOTHING_SWITCHED = new WorkflowState("cust2cust", "customer", "customer",
      MigrationType.SHARDS, List.of(), List.of("zone1"), List.of(), List.of("zone1"), false);
  private static final StreamMigration PLAN = new StreamMigration(List.of("mat"), List.of(new MigratedStream("0", 3,
      "mat", "keyspace:\"commerce\" shard:\"0\"", "MySQL56/a:1-5", "vt_customer", "", "", 0, 0, "{}", false)));
  private static final StreamMigration STOPPED = new StreamMigration(List.of("mat"),
      List.of(PLAN.streams().get(0).at("MySQL56/a:1-9")));
  private static final Set<String> UNDO = Set.of("cancelStreamMigration", "allowSourceWrites", "restartStreams",
      "restoreReverseVReplication");

  @AutoClose
  private final SwitchHarness h = new SwitchHarness();

  @BeforeEach
  void aReshardWithAMaterializeOnItsSource() {
    h.override("buildTrafficSwitcher", inv -> RESHARD);
    h.override("getWorkflowState", inv -> NOTHING_SWITCHED);
    h.override("planPrimaries", inv -> inv.getArgument(0));
    h.override("planStreamMigration", inv -> PLAN);
    h.override("stopStreams", inv -> STOPPED);
  }

  @Test
  void theStreamsMoveInVitessOrderAndTheJournalNamesThem() {
    Object result = h.switchTraffic(request());

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(h.calls()).containsSubsequence("planStreamMigration", "acquireLocks", "planStreamMigration",
        "stopSourceWrites", "stopStreams", "gatherSourcePositions", "waitForCatchup", "migrateStreams",
        "createReverseVReplication", "createJournals", "allowTargetWrites", "changeRouting",
        "finalizeStreamMigration", "startReverseVReplication", "freezeTargetVReplication");
    assertThat(h.invocations("stopStreams").findFirst().orElseThrow().get(1)).isEqualTo(PLAN);
    assertThat(h.invocations("migrateStreams").findFirst().orElseThrow().get(1))
        .as("the streams are created where they stopped").isEqualTo(STOPPED);
    assertThat(h.invocations("createJournals").findFirst().orElseThrow().get(3)).isEqualTo(List.of("mat"));
    assertThat(h.calls()).doesNotContain("cancelStreamMigration", "checkStreamMigration");
  }

  @Test
  void aFailureBeforeTheJournalStartsTheStreamsOnTheSourcesAgainOnceWritesAreAllowedThere() {
    h.fail("createReverseVReplication");

    Object result = h.switchTraffic(request());

    assertThat(result).isInstanceOf(WorkflowFailedException.class);
    assertThat(h.calls().stream().filter(UNDO::contains).toList()).containsExactly("restoreReverseVReplication",
        "restartStreams", "allowSourceWrites", "cancelStreamMigration");
    assertThat(h.invocations("cancelStreamMigration").findFirst().orElseThrow().get(1)).isEqualTo(PLAN);
    assertThat(h.calls()).doesNotContain("createJournals", "finalizeStreamMigration");
  }

  @Test
  void aFailureWhileStoppingTheStreamsAlsoUndoesThem() {
    h.fail("stopStreams");

    Object result = h.switchTraffic(request());

    assertThat(result).isInstanceOf(WorkflowFailedException.class);
    assertThat(h.calls()).containsSubsequence("stopStreams", "allowSourceWrites", "cancelStreamMigration")
        .doesNotContain("migrateStreams", "createJournals");
  }

  @Test
  void withNothingToMigrateNoMigrationStepRunsButTheFinalizeThatReadsTheJournal() {
    h.override("planStreamMigration", inv -> StreamMigration.NONE);

    Object result = h.switchTraffic(request());

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(h.calls()).doesNotContain("stopStreams", "migrateStreams", "cancelStreamMigration")
        .containsSubsequence("changeRouting", "finalizeStreamMigration");
    assertThat(h.invocations("createJournals").findFirst().orElseThrow().get(3)).isEqualTo(List.of());
  }

  @Test
  void theDryRunListsTheStreamsItWouldStopAndCreate() {
    Object result = h.switchTraffic(request().withDryRun(true));

    List<String> lines = ((ActionResult) result).dryRunResults();
    assertThat(lines).containsSubsequence(
        "Stop streams on keyspace customer: [id:3;shard:0;workflow:mat;position:MySQL56/a:1-5]",
        "Migrate streams to customer:",
        "Create target streams (as stopped): [keyspace:customer;shard:-80;workflow:mat;from:0 id 3,"
            + " keyspace:customer;shard:80-;workflow:mat;from:0 id 3]",
        "Switch writes completed, delete the streams of [mat] on [0] and start them on [-80, 80-]");
    assertThat(h.calls()).doesNotContain("stopStreams", "migrateStreams", "finalizeStreamMigration");
  }

  private static SwitchTrafficRequest request() {
    return SwitchTrafficRequest.of("cust2cust", "customer").withLockTtl(Duration.ofSeconds(4));
  }
}
