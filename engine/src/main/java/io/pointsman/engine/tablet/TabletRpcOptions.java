package io.pointsman.engine.tablet;

import io.pointsman.api.errors.PointsmanException;
import java.time.Duration;
import java.util.Objects;

/**
 * How tablet RPCs are made. Every call gets a deadline: a vttablet that hangs (MySQL stuck on a
 * metadata lock, a paused process) must not hang the activity past its own timeout.
 *
 * @param callTimeout deadline of each RPC except the waits, which take theirs from the caller
 * @param connectTimeout how long opening a connection to a tablet may take
 * @param tls plaintext or TLS (and the client certificate) for the tablets' gRPC ports
 */
public record TabletRpcOptions(Duration callTimeout, Duration connectTimeout, TabletTls tls) {
  public static final TabletRpcOptions DEFAULTS = new TabletRpcOptions(Duration.ofSeconds(30), Duration.ofSeconds(5));

  public TabletRpcOptions {
    positive("callTimeout", callTimeout);
    positive("connectTimeout", connectTimeout);
    Objects.requireNonNull(tls, "tls");
  }

  /** Plaintext gRPC. */
  public TabletRpcOptions(Duration callTimeout, Duration connectTimeout) {
    this(callTimeout, connectTimeout, TabletTls.PLAINTEXT);
  }

  public TabletRpcOptions withTls(TabletTls other) {
    return new TabletRpcOptions(callTimeout, connectTimeout, other);
  }

  static void positive(String what, Duration d) {
    Objects.requireNonNull(d, what);
    if (d.isZero() || d.isNegative()) {
      throw PointsmanException.invalidArgument(what + " must be positive, got " + d);
    }
  }
}
