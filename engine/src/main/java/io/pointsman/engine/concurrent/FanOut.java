package io.pointsman.engine.concurrent;

import io.pointsman.api.errors.PointsmanException;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs a step's work on every shard (or stream, or session) at once, so a step over sixteen shards takes about
 * as long as one over one. It returns only when every branch has ended, also when one fails or the
 * caller is interrupted (the branches are interrupted then, and waited for), so no change is still
 * being made on a shard when the step reports; the first failure is thrown, the others added to it
 * as suppressed. One item runs on the caller's thread; otherwise each item gets a thread of its own
 * for the call, so branches never queue behind another step's: an idle one from earlier fan-outs,
 * or a new one when none is idle. A new thread per branch, started and joined, cost about 35 µs a
 * branch on the bench's machine (a six-way fan-out 0.2 ms, against 0.02–0.03 ms on kept threads), and
 * a write switch fans out a few dozen times inside its window.
 */
public final class FanOut {
  private static final String IDLE_NAME = "pointsman-fan-out-idle";
  /** Threads kept for branches: never a queue, a new thread whenever none is idle; idle ones end after a minute. */
  private static final ExecutorService BRANCHES = Executors.newCachedThreadPool(task -> {
    Thread t = new Thread(task, IDLE_NAME);
    t.setDaemon(true);
    return t;
  });

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
    Branch[] branches = new Branch[n];
    CountDownLatch ended = new CountDownLatch(n);
    String name = "pointsman-fan-out-" + Thread.currentThread().getName();
    for (int i = 0; i < n; i++) {
      int at = i;
      Branch branch = new Branch();
      branches[i] = branch;
      BRANCHES.execute(() -> {
        Thread self = Thread.currentThread();
        self.setName(name + "-" + at);
        try {
          if (branch.begin(self)) {
            results[at] = work.apply(items.get(at));
          } else {
            failures[at] = PointsmanException.unavailable("interrupted before working on " + items.get(at), null);
          }
        } catch (RuntimeException | Error e) {
          failures[at] = e;
        } finally {
          branch.end();
          self.setName(IDLE_NAME);
          ended.countDown();
        }
      });
    }
    boolean interrupted = awaitAll(ended, branches);
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
  private static boolean awaitAll(CountDownLatch ended, Branch[] branches) {
    boolean interrupted = false;
    while (true) {
      try {
        ended.await();
        return interrupted;
      } catch (InterruptedException e) {
        interrupted = true;
        for (Branch b : branches) {
          b.interrupt();
        }
      }
    }
  }

  /**
   * One branch's thread while it works on its item. A kept thread goes on to other fan-outs'
   * branches, so an interrupt reaches it only while it works on this one, and none is left on it
   * when it is done.
   */
  private static final class Branch {
    private Thread thread;
    private boolean interrupted;
    private boolean ended;

    /** The branch starts on {@code t}; false when the caller was interrupted before it could. */
    synchronized boolean begin(Thread t) {
      thread = t;
      return !interrupted;
    }

    synchronized void interrupt() {
      interrupted = true;
      if (thread != null && !ended) {
        thread.interrupt();
      }
    }

    synchronized void end() {
      ended = true;
      Thread.interrupted(); // whatever interrupt was meant for this branch stays with it
    }
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
