package io.pointsman.engine.trace;

import java.util.Locale;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long the parts of a write switch that decide its write window took, one log line each, for
 * tracing one switch without patching the code: the logger {@value #LOGGER} at TRACE (the worker's
 * and the bench's logging config sets it from {@code POINTSMAN_TIMING}, off by default). A point
 * costs one {@link System#nanoTime()} call when tracing is off; its detail is only built when on.
 */
public final class TimingTrace {
  /** The logger the points go to. */
  public static final String LOGGER = "io.pointsman.timing";
  private static final Logger log = LoggerFactory.getLogger(LOGGER);

  private TimingTrace() {}

  /** When a traced part starts; pass it to {@link #took}. */
  public static long start() {
    return System.nanoTime();
  }

  /** Logs how long the part named {@code point} took since {@code started}, with its detail. */
  public static void took(String point, long started, Supplier<String> detail) {
    if (log.isTraceEnabled()) {
      double ms = (System.nanoTime() - started) / 1e6;
      log.trace("{} {} ms {}", point, String.format(Locale.ROOT, "%.2f", ms), detail.get());
    }
  }
}
