package io.pointsman.engine.concurrent;

import io.pointsman.api.errors.PointsmanException;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs a step's work on every shard (or stream, or session) at once, so a step over sixteen shards takes about
 * as long as one over one. It returns only when every branch has ended, also when one fails or the
 * caller is interrupted (the branches are interrupted then, and waited for), so no change is still
 * being made on a shard when the step reports; the first failure is thrown, the others added to it
 * as suppressed. One item runs on the caller's thread; otherwise each item gets a thread of its own
 * for the call, so branches never queue behind another step's.
 */
public final class FanOut {
  private FanOut() {}

  /** {@code work} on each item at once. */
  public static <T> void forEach(List<T> items, Consumer<T> work) {
    map(items, item -> {
      work.accept(item);
      return null;
    });
  }

  /** {@code work} on each item at once; the results in the items' order. */
  public static <T, R> List<R> map(List<T> items, Function<T, R> work) {
    if (items.size() == 1) {
      return Collections.singletonList(work.apply(items.get(0)));
    }
    int n = items.size();
    Object[] results = new Object[n];
    Throwable[] failures = new Throwable[n];
    Thread[] branches = new Thread[n];
    String name = "pointsman-fan-out-" + Thread.currentThread().getName();
    for (int i = 0; i < n; i++) {
      int at = i;
      branches[i] = new Thread(() -> {
        try {
          results[at] = work.apply(items.get(at));
        } catch (RuntimeException | Error e) {
          failures[at] = e;
        }
      }, name + "-" + i);
      branches[i].setDaemon(true);
      branches[i].start();
    }
    boolean interrupted = joinAll(branches);
    RuntimeException failure = null;
    for (Throwable t : failures) {
      if (t != null) {
        failure = add(failure, t);
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      failure = add(failure, PointsmanException.unavailable("interrupted while working on " + items, null));
    }
    if (failure != null) {
      throw failure;
    }
    @SuppressWarnings("unchecked")
    List<R> out = (List<R>) Arrays.asList(results);
    return out;
  }

  /** Waits for every branch; on an interrupt, interrupts them and still waits. Returns whether it was interrupted. */
  private static boolean joinAll(Thread[] branches) {
    boolean interrupted = false;
    for (Thread t : branches) {
      while (true) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
          for (Thread b : branches) {
            b.interrupt();
          }
        }
      }
    }
    return interrupted;
  }

  private static RuntimeException add(RuntimeException first, Throwable next) {
    RuntimeException e = next instanceof RuntimeException r ? r : new IllegalStateException(next);
    if (first == null) {
      return e;
    }
    first.addSuppressed(e);
    return first;
  }
}
