package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;
import java.time.Duration;
import java.util.Objects;

/**
 * How long a barrier's preparation may take, before the write window: each statement's wait for
 * the open transactions using its table, and the statements together. They differ because a
 * waiting DDL statement holds up its table's writers behind it (so its wait is the request's
 * timeout, as in the window), while the statements' own work grows with the table count and
 * stops nobody's writes (so it is bounded only by what the step itself may take).
 *
 * @param lockWait how long one statement waits for transactions using its table (0: not at all)
 * @param total how long all of the statements may take together, at least {@code lockWait}
 */
public record PrepareBudget(Duration lockWait, Duration total) {

  public PrepareBudget {
    Objects.requireNonNull(lockWait, "lockWait");
    Objects.requireNonNull(total, "total");
    if (lockWait.isNegative()) {
      throw PointsmanException.invalidArgument("a barrier's lock wait cannot be negative: " + lockWait);
    }
    if (total.compareTo(lockWait) < 0) {
      throw PointsmanException.invalidArgument("a barrier's preparation may take " + total
          + " in all, less than the " + lockWait + " one statement may wait for transactions");
    }
  }

  /** One bound for both: each statement's wait and all of them together end within {@code timeout}. */
  public static PrepareBudget within(Duration timeout) {
    return new PrepareBudget(timeout, timeout);
  }
}
