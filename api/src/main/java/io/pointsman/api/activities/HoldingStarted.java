package io.pointsman.api.activities;

import io.temporal.workflow.SignalMethod;

/**
 * The signal {@code holdLocks} sends its own workflow once it holds the leases of its lock set and
 * renews them (docs/locks.md §9). After each acquisition the workflow waits for it before it runs
 * local steps under the locks: a local step keeps the workflow task open, and holdLocks is not even
 * scheduled before that task ends. A signal is a task boundary that costs one delivery; a timer,
 * which served before, fires up to a second late on a Temporal server's default timer settings.
 */
public interface HoldingStarted {
  String SIGNAL = "holdLocksStarted";

  /** @param fencingToken {@link io.pointsman.api.lock.LockSet#fencingToken()} of the set held */
  @SignalMethod(name = SIGNAL)
  void holdLocksStarted(long fencingToken);
}
