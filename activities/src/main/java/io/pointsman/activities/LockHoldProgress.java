package io.pointsman.activities;

import java.time.Instant;

/**
 * The heartbeat details of {@code holdLocks}, shown for the pending activity in the Temporal UI:
 * which attempt holds the locks, and when it last saw all of them held.
 *
 * @param attempt the activity attempt (a retry after a worker crash re-attaches with a higher one)
 * @param locks how many locks it holds
 * @param beats heartbeats sent by this attempt
 * @param allHeldAt when every lock was last seen held, renewed within its TTL (wall clock)
 */
public record LockHoldProgress(int attempt, int locks, long beats, Instant allHeldAt) {}
