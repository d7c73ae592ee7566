package io.pointsman.engine.primary.tablet;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a mutating tablet RPC and settles its outcome by reading back: a call whose outcome is unknown
 * (deadline passed after it was sent) counts as done when the read shows the change, and is never
 * repeated blindly (a repeated insert would create a second stream). A call the tablet confirmed is
 * read back too, so a tablet that said yes but did not change anything is caught here.
 */
final class Outcomes {
  private static final Logger log = LoggerFactory.getLogger(Outcomes.class);

  private Outcomes() {}

  static <T> T settle(String action, Supplier<T> rpc, BooleanSupplier done, Supplier<T> resultIfDone) {
    AtomicBoolean readBack = new AtomicBoolean();
    T result = settleUnknown(action, rpc, () -> {
      readBack.set(true);
      return done.getAsBoolean();
    }, resultIfDone);
    if (!readBack.get() && !done.getAsBoolean()) {
      throw PointsmanException.internal(action + ": the tablet confirmed it, but reading back does not show it", null);
    }
    return result;
  }

  /**
   * As {@link #settle}, but a call the tablet confirmed is not read back here: the caller reads back
   * several such calls at once when they are done (fewer calls inside the write window).
   */
  static <T> T settleUnknown(String action, Supplier<T> rpc, BooleanSupplier done, Supplier<T> resultIfDone) {
    try {
      return rpc.get();
    } catch (PointsmanException e) {
      if (e.code() != ErrorCode.UNKNOWN_OUTCOME) {
        throw e;
      }
      if (done.getAsBoolean()) {
        log.info("{}: the outcome was unknown ({}); the read-back shows it applied", action, e.getMessage());
        return resultIfDone.get();
      }
      throw e;
    }
  }
}
