package io.pointsman.api.activities;

import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.SavedStream;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.model.SequenceValue;
import io.pointsman.api.model.ShardPositions;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.WorkflowState;
import io.temporal.activity.ActivityInterface;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The steps of SwitchTraffic and ReverseTraffic, each named after the Vitess step it performs so
 * the Temporal UI timeline reads like Vitess's log. Every mutating step takes the LockSet and
 * fences each etcd and MySQL change with it; every step is idempotent, because Temporal may run it
 * again after a timeout even when the first attempt took effect. Positions are keyed by shard and
 * printed as Vitess prints them ({@code MariaDB/0-1-42}, {@code MySQL56/<uuid>:1-42}).
 */
@ActivityInterface
public interface SwitchActivities {
  /**
   * Reads the workflow's streams and the topology into the traffic switcher (read-only). Refuses,
   * not retried, a workflow pointsman does not handle: a Migrate (INVALID_ARGUMENT), or a partial,
   * multi-tenant or wildcard MoveTables, or a Reshard whose shards do not cover the same key range
   * (FAILED_PRECONDITION).
   */
  MigrationInfo buildTrafficSwitcher(String targetKeyspace, String workflow);

  /**
   * {@link #buildTrafficSwitcher} without the source keyspace (read-only), for a Complete or Cancel
   * asked to ignore it: reads the target's streams and shards only, and answers a switcher marked
   * {@code sourceIgnored}. Refuses what buildTrafficSwitcher refuses that the target's streams show,
   * and a Reshard (INVALID_ARGUMENT: its source keyspace is its target).
   */
  MigrationInfo buildTrafficSwitcherIgnoringSource(String targetKeyspace, String workflow);

  /** Which cells and types read from the target, and whether writes are switched (read-only). */
  WorkflowState getWorkflowState(MigrationInfo info, List<String> cells);

  /** Why the switch cannot happen now (lag, frozen, copying, errors), or "" when it can (read-only). */
  String canSwitch(MigrationInfo info, Duration maxReplicationLagAllowed);

  /**
   * Why writes cannot switch with reverse replication now, or "" when they can (read-only): Vitess's
   * checks before such a switch. Each source primary's filtered-replication user must be able to
   * manage the reverse streams' sidecar rows, and each target shard needs a healthy tablet
   * of the workflow's tablet types in {@code cells} (the workflow's cells when empty, else the
   * primary's) for the reverse streams to read from.
   */
  String checkReverseReplication(MigrationInfo info, List<String> cells);

  /**
   * Refuses (FAILED_PRECONDITION, not retried) switching the writes of a Reshard while the primaries
   * of its source shards run other workflows' streams, which Vitess migrates to the target shards
   * and pointsman cannot yet. Nothing for a MoveTables (read-only).
   */
  void checkStreamMigration(MigrationInfo w);

  /**
   * What switching the writes of Reshard {@code w} does with the streams of other workflows on its
   * source shards' primaries, as Vitess's stream migrator plans it (read-only): each is to be
   * stopped, brought to one position and recreated on the target shards. Refuses (FAILED_PRECONDITION,
   * not retried) streams that cannot be migrated: one not running, still copying, not the same on
   * every source shard, named as the Reshard, without a key range to retarget, or reading from the
   * resharded keyspace itself. {@link StreamMigration#NONE} for a MoveTables, when there are none,
   * and once the switch has written its journal (a rerun then resumes after it).
   */
  StreamMigration planStreamMigration(MigrationInfo w);

  /**
   * Stops the planned streams on the source primaries ("for cutover"), runs those behind on to the
   * furthest position of any copy reading the same source shard and stops them there, within
   * {@code timeout}, and checks every copy stopped at it. Returns the streams with that position.
   * Undone by {@link #cancelStreamMigration}.
   */
  StreamMigration stopStreams(MigrationInfo w, StreamMigration plan, Duration timeout, LockSet locks);

  /**
   * Creates the stopped streams on every target primary, Stopped, at the position they stopped at,
   * each filter's key range that of the target shard; first deletes any earlier copies of those
   * workflows there. Undone by {@link #cancelStreamMigration}.
   */
  void migrateStreams(MigrationInfo w, StreamMigration stopped, LockSet locks);

  /**
   * The undo of {@link #stopStreams} and {@link #migrateStreams}: deletes the planned workflows'
   * streams on the target primaries and sets their streams on the source primaries Running again
   * (no stop position, message cleared). Harmless where neither step ran.
   */
  void cancelStreamMigration(MigrationInfo w, StreamMigration plan, LockSet locks);

  /**
   * After routing points at the targets: deletes the streams of the workflows the journal names
   * ({@code source_workflows}) on the source primaries and starts them on the target primaries.
   * Idempotent; nothing when the journal names none. Returns the workflows it finalized.
   */
  List<String> finalizeStreamMigration(MigrationInfo w, LockSet locks);

  /**
   * Refuses (FAILED_PRECONDITION, not retried) deleting a Reshard's source shards while other
   * workflows' streams run on them or read from them. Nothing for a MoveTables (read-only).
   */
  void checkSourceShardsDeletion(MigrationInfo info);

  /** Whether a journal of this migration exists on any source primary: the point of no return passed. */
  boolean checkJournals(MigrationInfo info);

  /** Points reads of the given tablet types in the given cells (all if empty) at target or source. */
  void switchReads(MigrationInfo info, List<TabletType> tabletTypes, List<String> cells, Direction direction,
      LockSet locks);

  /**
   * vtctldclient MoveTables MirrorTraffic (Vitess's mirrorTableTraffic): the moved tables' mirror
   * rules of {@code tabletTypes}, from the source to the target keyspace, set to {@code percent} of
   * the queries (removed at 0), and every cell's SrvVSchema rebuilt. While any of the workflow's
   * tables is mirrored, the target primaries serve reads of the tables they deny (allow_reads,
   * set and the tablets refreshed before the rules are served; cleared after the last rule goes).
   * Refuses (ALREADY_EXISTS, not retried) before any change when only some of the rules for these
   * types exist. Idempotent.
   */
  void mirrorTableTraffic(MigrationInfo info, List<TabletType> tabletTypes, float percent, LockSet locks);

  /**
   * The target primaries' allow_reads set from the mirror rules as they are, and their tablets
   * refreshed (every time, as a run before may have changed the record and failed to refresh): the
   * undo of a {@link #mirrorTableTraffic} that failed between its changes. Nothing for a Reshard.
   */
  void allowTargetReadsWhileMirrored(MigrationInfo info, LockSet locks);

  /**
   * Before the write window: installs on the source primaries what {@link #stopSourceWrites} would
   * otherwise install inside it, letting writes through meanwhile (direct MySQL: the barrier's
   * triggers, dormant), so that the window's cost does not grow with the table count. Idempotent;
   * changes nothing in the topology. Each of its statements waits at most {@code timeout} for the
   * transactions using its table; all of them together take at most the step's own start-to-close
   * (less a margin for its answer), or outside Temporal {@code timeout} plus {@link #PREPARE_WORK}.
   *
   * @param owner who prepares (the switch's run), so that its undo removes exactly what it installed
   */
  void prepareSourceWrites(MigrationInfo info, String owner, Duration timeout, LockSet locks);

  /**
   * What {@link #prepareSourceWrites} may take beyond the request's timeout: its statements' own
   * work, which grows with the table count (a thousand tables' triggers took 14 s on an idle, slow
   * machine) and holds up no writes, unlike a statement waiting for transactions.
   */
  Duration PREPARE_WORK = Duration.ofMinutes(5);

  /**
   * Undoes {@link #prepareSourceWrites} of {@code owner} where the sources' writes are not denied:
   * compensation, harmless whatever ran after it (a denied source stays denied).
   */
  void removePreparedSourceBarrier(MigrationInfo info, String owner, LockSet locks);

  /**
   * Denies writes on the source in the topology and on the source primaries, draining in-flight
   * ones. A transaction still using a moved table after {@code drainTimeout} fails the step with
   * DEADLINE_EXCEEDED, as Vitess's LOCK TABLES fails the switch within its {@code --timeout}.
   */
  void stopSourceWrites(MigrationInfo info, Duration drainTimeout, LockSet locks);

  /**
   * Undoes {@link #stopSourceWrites} exactly: compensation. What {@link #prepareSourceWrites}
   * installed before stays for its own undo.
   */
  void allowSourceWrites(MigrationInfo info, LockSet locks);

  /** The source primaries' positions, read after their writes stopped. */
  Map<String, String> gatherSourcePositions(MigrationInfo info);

  /**
   * Waits until every stream reached its source shard's position, then stops it "for cutover";
   * returns the target primaries' positions. Heartbeats while waiting.
   */
  Map<String, String> waitForCatchup(MigrationInfo info, Map<String, String> sourcePositions, Duration timeout,
      LockSet locks);

  /**
   * Reads the primary of every source and target shard (alias and term start, from the Shard
   * records) into the switcher, under the write window's shard locks (read-only). Every later step
   * given the result acts only on those primaries: one that finds another primary there refuses
   * with FAILED_PRECONDITION, naming the shard and both primaries, and changes nothing.
   */
  MigrationInfo planPrimaries(MigrationInfo info);

  /** Sets the workflow's streams Running again (compensation of the catch-up stop). */
  void restartStreams(MigrationInfo info, LockSet locks);

  /** The rows named {@code <wf>_reverse} on the source primaries now, so a compensation can restore them. */
  List<SavedStream> readReverseStreams(MigrationInfo info);

  /**
   * Creates {@code <wf>_reverse} on the source primaries, Stopped, from the target positions, after
   * deleting any rows of that name (as Vitess does, so the new streams get new ids and the next
   * switch a new journal id).
   */
  void createReverseVReplication(MigrationInfo info, Map<String, String> targetPositions, LockSet locks);

  /**
   * Compensation of {@link #createReverseVReplication}: replaces the rows of that name with the
   * saved ones, ids included. Vitess's cancel deletes them for good, which loses the frozen forward
   * streams of a failed ReverseTraffic (vitessio/vitess#14276); this puts them back.
   */
  void restoreReverseVReplication(MigrationInfo info, List<SavedStream> saved, LockSet locks);

  /**
   * What the write switch does to sequences (read-only), as Vitess decides it: for a MoveTables,
   * whether the moved tables include sequence tables, whose ids the source primaries cached; and,
   * when {@code initializeTargetSequences} is asked and the source keyspace is unsharded, the
   * sequence of every moved table the target's VSchema gives one. Refuses, not retried, a sequence
   * table no unsharded keyspace has (FAILED_PRECONDITION, naming it). Nothing for a Reshard.
   */
  SequencePlan planSequences(MigrationInfo info, boolean initializeTargetSequences);

  /** For a dry run: each planned sequence's next id now and once initialized (read-only). */
  List<SequenceValue> readSequenceValues(MigrationInfo info, SequencePlan plan);

  /**
   * Has the source primaries forget the sequence values they cached (Vitess's ResetSequences), once
   * writes stopped. Harmless to repeat, so it has no undo.
   */
  void resetSequences(MigrationInfo info, LockSet locks);

  /**
   * Moves each planned sequence past the highest id of its table on every target primary, and has
   * the primary serving it forget its cached values, before writes reach the target. A sequence only
   * ever moves up, so a rerun is harmless and the step has no undo: an id skipped is never reused.
   * Returns the highest id found for each sequence table.
   */
  Map<String, Long> initializeTargetSequences(MigrationInfo info, SequencePlan plan, LockSet locks);

  /**
   * Writes the journal on every source primary that lacks it: the point of no return. It names the
   * workflows whose streams the switch migrated ({@code sourceWorkflows}, none when null); where a
   * source already has the journal, the others get the workflows it names.
   */
  void createJournals(MigrationInfo info, Map<String, String> sourcePositions, Map<String, String> targetPositions,
      List<String> sourceWorkflows, LockSet locks);

  /** Lets the target take writes (denied tables removed, or query service enabled). */
  void allowTargetWrites(MigrationInfo info, LockSet locks);

  /** Points writes at the target (routing rules, or shard records and SrvKeyspace). */
  void changeRouting(MigrationInfo info, LockSet locks);

  /** Sets the reverse streams Running. */
  void startReverseVReplication(MigrationInfo info, LockSet locks);

  /** Marks the workflow's streams FROZEN: writes are switched. */
  void freezeTargetVReplication(MigrationInfo info, LockSet locks);

  /** The current source and target positions, for resuming after the journal (read-only). */
  ShardPositions gatherPositions(MigrationInfo info);
}
