package io.pointsman.e2e;

import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.model.Progress;
import java.util.ArrayList;
import java.util.List;

/**
 * The fencing token each lock acquisition of an action ended with, from its progress: an
 * {@code acquireLocks} and the write window's {@code acquireShardLocks} after it count as one
 * acquisition, whose token is the higher of the two, as {@code LockSet.fencingToken()} of the
 * locks the steps then run under is. Each step's detail ends with its token.
 */
final class AcquiredTokens {
  private AcquiredTokens() {}

  static List<Long> of(Progress progress) {
    List<Long> tokens = new ArrayList<>();
    for (StepProgress s : progress.steps()) {
      if (s.status() != StepStatus.DONE) {
        continue;
      }
      if (s.name().equals("acquireLocks")) {
        tokens.add(token(s));
      } else if (s.name().equals("acquireShardLocks") && !tokens.isEmpty()) {
        int last = tokens.size() - 1;
        tokens.set(last, Math.max(tokens.get(last), token(s)));
      }
    }
    return tokens;
  }

  /** Every token the action's acquisitions ended with, the write window's shard locks' apart. */
  static java.util.Set<Long> all(Progress progress) {
    java.util.Set<Long> tokens = new java.util.HashSet<>();
    for (StepProgress s : progress.steps()) {
      if (s.status() == StepStatus.DONE && (s.name().equals("acquireLocks") || s.name().equals("acquireShardLocks"))) {
        tokens.add(token(s));
      }
    }
    return tokens;
  }

  /**
   * The tokens a step run under {@code locks} or under a part of them may carry: the write window
   * adds its shard locks to the set, so a step before the window carries the highest token of the
   * named and keyspace locks, one in the window the highest of all.
   */
  static java.util.Set<Long> within(io.pointsman.api.lock.LockSet locks) {
    java.util.Set<Long> tokens = new java.util.HashSet<>();
    locks.locks().forEach(t -> tokens.add(t.fencingToken()));
    return tokens;
  }

  private static long token(StepProgress step) {
    String detail = step.detail();
    return Long.parseLong(detail.substring(detail.lastIndexOf(' ') + 1));
  }
}
