package io.pointsman.api.activities;

import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.MigrateWorkflow;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.UnfinishedCleanup;
import io.temporal.activity.ActivityInterface;

/**
 * The steps of Complete and Cancel; each converges when run again (nothing left to drop is fine),
 * and each heartbeats while it waits (a DROP behind a metadata lock), so no retry overlaps it.
 */
@ActivityInterface
public interface CleanupActivities {
  /**
   * Complete: deletes the reverse streams on the sources (none may write into what is dropped),
   * then drops (or renames) the moved tables on the source primaries and removes them from the
   * source VSchema and denied tables (TABLES), or deletes the source shards (SHARDS).
   */
  void dropSources(MigrationInfo info, boolean renameTables, LockSet locks);

  /**
   * Cancel: stops the target streams and drops the copied tables on the target primaries, lifts
   * any write barrier a switch left on the sources (and for SHARDS their disabled primary query
   * service), and removes the workflow's denied tables on both sides (TABLES) or the tablet
   * controls its read switches left in SrvKeyspace (SHARDS).
   */
  void dropTargets(MigrationInfo info, boolean keepData, LockSet locks);

  /** Deletes the reverse streams on the sources and the streams on the targets. */
  void deleteStreams(MigrationInfo info, LockSet locks);

  /** Deletes the routing rules of the moved tables (TABLES) and rebuilds SrvVSchema. */
  void deleteRoutingRules(MigrationInfo info, LockSet locks);

  /**
   * The workflow if it is a Migrate (its streams are of type Migrate or read an external cluster or
   * MySQL), else null: those Complete and Cancel finalize on the target alone. Read-only.
   */
  MigrateWorkflow readMigrateWorkflow(String targetKeyspace, String workflow);

  /**
   * Refuses (FAILED_PRECONDITION, not retried) completing a Migrate whose tables the target's VSchema
   * lacks while the keyspace is sharded: Vitess cannot add a sharded table without its vindexes
   * either. Read-only.
   */
  void checkMigrateComplete(MigrateWorkflow migrate);

  /** Deletes the Migrate's streams on the target primaries. */
  void deleteMigrateStreams(MigrateWorkflow migrate, LockSet locks);

  /** Complete of a Migrate: adds its tables to the target VSchema where missing, and rebuilds SrvVSchema. */
  void addMigratedTables(MigrateWorkflow migrate, LockSet locks);

  /** Cancel of a Migrate: drops its tables on the target primaries and from the target VSchema, rebuilds SrvVSchema. */
  void dropMigratedTables(MigrateWorkflow migrate, LockSet locks);

  /** The Complete or Cancel of the workflow that began and has not finished, or null. Read-only. */
  UnfinishedCleanup readUnfinishedCleanup(String targetKeyspace, String workflow);

  /** Records that {@code cleanup} begins, before its first change (overwrites an earlier record). */
  void recordUnfinishedCleanup(UnfinishedCleanup cleanup, LockSet locks);

  /** Deletes that record once the action's last change is made; gone already is fine. */
  void deleteUnfinishedCleanup(String targetKeyspace, String workflow, LockSet locks);
}
