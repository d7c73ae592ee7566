package io.pointsman.engine.tablet;

import io.pointsman.api.errors.PointsmanException;
import java.time.Duration;
import java.util.Objects;

/**
 * How long tablet RPCs may take. Every call gets a deadline: a vttablet that hangs (MySQL stuck on
 * a metadata lock, a paused process) must not hang the activity past its own timeout.
 *
 * @param callTimeout deadline of each RPC except the waits, which take theirs from the caller
 * @param connectTimeout how long opening a connection to a tablet may take
 */
public record TabletRpcOptions(Duration callTimeout, Duration connectTimeout) {
  public static final TabletRpcOptions DEFAULTS = new TabletRpcOptions(Duration.ofSeconds(30), Duration.ofSeconds(5));

  public TabletRpcOptions {
    positive("callTimeout", callTimeout);
    positive("connectTimeout", connectTimeout);
  }

  static void positive(String what, Duration d) {
    Objects.requireNonNull(d, what);
    if (d.isZero() || d.isNegative()) {
      throw PointsmanException.invalidArgument(what + " must be positive, got " + d);
    }
  }
}
