package io.pointsman.workflows;

import io.temporal.workflow.Workflow;

/**
 * Change ids of workflow changes shared by several classes, behind {@code Workflow.getVersion}, so
 * runs started before a change replay as they ran (the histories in the workflows module's test
 * resources are such runs). A change id is recorded once per run, where it is first asked.
 */
final class Versions {
  /**
   * The write switch's critical section as local activities (each still a recorded step, but no
   * server round trip between them); holdLocks reaching the server before any of them runs; and
   * the leases revoked at the end without first waiting for holdLocks to see its cancellation.
   */
  static final String LOCAL_CRITICAL_SECTION = "local-critical-section";

  /**
   * The steps outside the write window that used to cost a server round trip each, as local
   * activities: the reads before the locks (a dry run's too), the reads again under them before any
   * change (canSwitch stayed an activity until LOCAL_CHECKS), the write switch's reads before its
   * window's first change (planSequences, checkFailoverTools, planPrimaries; readReverseStreams
   * stayed an activity, recorded before the local chain, until LOCAL_CHECKS), the revoke of the
   * leases at the end and the read of the state after it. Each is still a recorded step (a marker
   * with its name and result). The revoke runs with holdLocks still going, which ends on its own
   * once it sees it; holdLocks is cancelled only when the revoke failed (LockKeeper.releaseLocally).
   */
  static final String LOCAL_READS = "local-reads-outside-the-write-window";

  /** Each step's LockSet carries a fence epoch (LockKeeper.locks), so a replaced execution is fenced out. */
  static final String STEP_EPOCHS = "step-fence-epochs";

  /**
   * Version 1: a Reshard's write switch refuses while other workflows' streams run on its source
   * shards, and its Complete while other streams run on or read from the source shards it would
   * delete. Version 2 ({@link #MIGRATE_STREAMS}): the write switch migrates those streams to the
   * target shards as Vitess does, refusing only streams that cannot be migrated; Complete as before.
   */
  static final String REFUSE_STREAM_MIGRATION = "refuse-stream-migration";
  static final int MIGRATE_STREAMS = 2;

  /**
   * A MoveTables write switch handles sequences as Vitess does: planned from the VSchemas under
   * the keyspace locks (and in a dry run), the source's cached ids dropped when sequence tables
   * move, and the target's sequences initialized before the journal when asked.
   */
  static final String SEQUENCES = "sequences-in-the-write-switch";

  /**
   * Before anything changes, a switch of writes that will start reverse replication asks what
   * Vitess asks first: may the source primaries manage the reverse streams, and can the reverse
   * streams read from the target shards.
   */
  static final String CHECK_REVERSE_REPLICATION = "check-reverse-replication";

  /**
   * A switch of writes prepares the source's barrier before the shard locks (direct MySQL: its
   * triggers installed dormant), so that stopping the writes in the window is one flip per
   * primary; undone by removePreparedSourceBarrier when the switch is undone.
   */
  static final String PREPARED_BARRIER = "prepared-source-barrier";

  /**
   * The checks under the keyspace locks that were activities only to be recorded before what
   * follows them (canSwitch; readReverseStreams, now read before the shard locks) and the prepared
   * barrier (prepareSourceWrites), as local activities. A local step's marker is recorded when its
   * workflow task completes, and each of these tasks completes by scheduling the next activity
   * (switchReads, or acquireShardLocks): so every one is in the history before any change after
   * it, and above all before the window's local chain. A worker that dies first leaves nothing of
   * this pass changed but the prepared barrier, which the next one prepares again (it is
   * idempotent for its run) and whose undo is registered before it.
   */
  static final String LOCAL_CHECKS = "local-checks-under-the-locks";

  /**
   * After each acquisition, the local steps under the locks wait for holdLocks's signal that it
   * renews them (HoldingStarted), for at most a few seconds, instead of a 1 ms timer that only made
   * the task end: on a Temporal server's default settings such a timer fires up to a second late,
   * and a write switch has two of them before its window.
   */
  static final String HOLDING_SIGNAL = "local-steps-wait-for-holding-signal";

  /**
   * Each acquisition first tries to take the locks as a local activity (tryAcquireLocks) inside the
   * workflow task that needs them, and only when another holder is in the way (or etcd is slow)
   * waits for them as the acquireLocks activity, which shows whom it waits for. Free locks then
   * cost no server round trip of their own: the task ends by scheduling holdLocks.
   */
  static final String LOCAL_ACQUIRE = "local-try-before-acquire";

  /**
   * After a loss, the old leases are revoked before anything else and holdLocks is left to end on
   * its own (it does once it sees them gone), cancelled only when the revoke failed: a cancellation
   * could cross its completion (after a lost workflow task a re-run step finds the leases revoked
   * while both holdLocks end at once), which the SDK's test server refuses for good.
   */
  static final String REVOKE_BEFORE_REACQUIRE = "revoke-before-reacquire";

  private Versions() {}

  static boolean preparedBarrier() {
    return Workflow.getVersion(PREPARED_BARRIER, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean checkReverseReplication() {
    return Workflow.getVersion(CHECK_REVERSE_REPLICATION, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean sequences() {
    return Workflow.getVersion(SEQUENCES, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean refuseStreamMigration() {
    return streamMigration() >= 1;
  }

  /** Whether a Reshard's write switch migrates other workflows' streams ({@link #MIGRATE_STREAMS}). */
  static boolean migrateStreams() {
    return streamMigration() >= MIGRATE_STREAMS;
  }

  private static int streamMigration() {
    return Workflow.getVersion(REFUSE_STREAM_MIGRATION, Workflow.DEFAULT_VERSION, MIGRATE_STREAMS);
  }

  static boolean stepEpochs() {
    return Workflow.getVersion(STEP_EPOCHS, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean localReads() {
    return Workflow.getVersion(LOCAL_READS, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean localChecks() {
    return Workflow.getVersion(LOCAL_CHECKS, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean holdingSignal() {
    return Workflow.getVersion(HOLDING_SIGNAL, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean localAcquire() {
    return Workflow.getVersion(LOCAL_ACQUIRE, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean revokeBeforeReacquire() {
    return Workflow.getVersion(REVOKE_BEFORE_REACQUIRE, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean localCriticalSection() {
    return Workflow.getVersion(LOCAL_CRITICAL_SECTION, Workflow.DEFAULT_VERSION, 1) >= 1;
  }
}
