package io.pointsman.api.lock;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.List;
import java.util.Objects;

/**
 * The locks one action holds, in acquisition order (named workflow lock first, then keyspaces by
 * name). Every mutation made under them is fenced with all of them.
 */
public record LockSet(List<LockToken> locks) {
  public LockSet {
    locks = List.copyOf(Objects.requireNonNull(locks, "locks"));
  }

  public static LockSet of(LockToken... locks) {
    return new LockSet(List.of(locks));
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
