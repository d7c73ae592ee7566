package io.pointsman.api.lock;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.List;
import java.util.Objects;

/**
 * The locks one action holds, in acquisition order (named workflow lock first, then keyspaces by
 * name). Every mutation made under them is fenced with all of them.
 *
 * <p>A fencing token tells lock grants apart, not executions: a step whose worker was paused past
 * its timeout is run again under the same, still valid, locks. The {@code epoch} tells those
 * executions apart (docs/locks.md §8): the workflow stamps each step's LockSet with a higher one,
 * the activity adds its attempt, and the MySQL fence refuses an older epoch under the same token
 * once a newer one has written there. 0 (locks taken by tools, histories from before epochs)
 * compares below every stamped epoch.
 *
 * @param locks the tokens
 * @param epoch which execution of the critical section this is, under these tokens; 0 if none
 */
public record LockSet(List<LockToken> locks, long epoch) {
  public LockSet {
    locks = List.copyOf(Objects.requireNonNull(locks, "locks"));
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must not be negative, got " + epoch);
    }
  }

  public LockSet(List<LockToken> locks) {
    this(locks, 0);
  }

  public static LockSet of(LockToken... locks) {
    return new LockSet(List.of(locks));
  }

  /** The same locks, stamped for one execution of a step. */
  public LockSet withEpoch(long epoch) {
    return new LockSet(locks, epoch);
  }

  /**
   * The same locks, stamped with the epoch of the {@code step}-th step of a run stamped at
   * {@code millis}: the time in the high bits, so a pass re-run later stamps higher; the step's
   * order within the run in the next ten bits; the low ten left for the activity's attempt.
   */
  public LockSet stampedForStep(long millis, long step) {
    return withEpoch((millis << 20) | ((step & 0x3FF) << 10));
  }

  /** The highest fencing token of the set, for progress and logs; each MySQL fence row compares its own lock's token. */
  public long fencingToken() {
    return locks.stream().mapToLong(LockToken::fencingToken).max().orElse(0);
  }

  @JsonIgnore // derived, not a field: Temporal's and the topology's JSON must not carry it
  public boolean isEmpty() {
    return locks.isEmpty();
  }
}
