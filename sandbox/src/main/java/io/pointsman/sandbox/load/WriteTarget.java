package io.pointsman.sandbox.load;

import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.router.Write;
import java.time.Duration;
import java.util.Objects;

/** Where a load's writes go: the sandbox's {@link Router}, or a real vtgate ({@link VtgateWrites}). */
public interface WriteTarget {

  /**
   * Sends one write and returns once it is acknowledged.
   *
   * @throws RuntimeException when it was refused, or its outcome is unknown
   */
  void send(Write write);

  /** How long a write may be held before it is answered (buffering included): what a stop waits for. */
  Duration longestAnswer();

  /** What a load records of a write {@link #send} refused with {@code e}. */
  default String failureMessage(RuntimeException e) {
    return e.toString();
  }

  /** Writes through the sandbox's router, held up to its buffer window and statement timeout. */
  static WriteTarget of(Router router) {
    Objects.requireNonNull(router, "router");
    return new WriteTarget() {
      @Override
      public void send(Write write) {
        router.execute(write);
      }

      @Override
      public Duration longestAnswer() {
        return router.options().bufferWindow().plus(router.options().statementTimeout());
      }
    };
  }
}
