package io.pointsman.activities;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCompletionException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heartbeats for an activity while its own thread is busy in a blocking call (a catch-up wait, a
 * write barrier waiting for a metadata lock), so that Temporal sees it alive and a cancellation
 * (the workflow lost its lock, or was cancelled) reaches it. {@link #checkCancelled()} rethrows the
 * cancellation on the activity's thread at the next safe point.
 */
final class Heartbeater implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Heartbeater.class);

  private final ScheduledExecutorService timer;
  private final AtomicReference<ActivityCompletionException> cancelled = new AtomicReference<>();

  private Heartbeater(ActivityExecutionContext context, Duration every) {
    String name = "heartbeat " + context.getInfo().getActivityType();
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
    timer.scheduleAtFixedRate(() -> {
      try {
        context.heartbeat(null);
      } catch (ActivityCompletionException e) {
        cancelled.compareAndSet(null, e);
      } catch (RuntimeException e) {
        log.debug("heartbeat failed: {}", e.toString());
      }
    }, 0, every.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Starts heartbeating for the activity running on this thread; outside an activity, and in a
   * local activity, it does nothing: the SDK ignores a local activity's heartbeat (the write
   * window's chain, where a thread started and stopped for each step would be all it did).
   */
  static Heartbeater start() {
    ActivityExecutionContext context = AttemptTime.context().orElse(null);
    if (context == null || context.getInfo().isLocal()) {
      return new Heartbeater();
    }
    Duration timeout = context.getInfo().getHeartbeatTimeout();
    Duration every = timeout == null || timeout.isZero() ? Duration.ofSeconds(5) : timeout.dividedBy(3);
    return new Heartbeater(context, every.compareTo(Duration.ofMillis(200)) < 0 ? Duration.ofMillis(200) : every);
  }

  private Heartbeater() {
    timer = null;
  }

  /** Throws the cancellation Temporal delivered, if any; call between units of work. */
  void checkCancelled() {
    ActivityCompletionException e = cancelled.get();
    if (e != null) {
      throw e;
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
