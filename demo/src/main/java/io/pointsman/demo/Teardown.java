package io.pointsman.demo;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What the demo started, closed in reverse order exactly once, whether the demo ends, fails or is
 * interrupted (the shutdown hook calls it too). A failure to close one thing does not keep the
 * others running; it is reported after all were tried.
 */
final class Teardown implements AutoCloseable {
  private final Deque<Step> steps = new ArrayDeque<>();
  private boolean closed;

  private record Step(String what, AutoCloseable resource) {}

  /** Registers something to close; returns it for chaining. */
  synchronized <T extends AutoCloseable> T add(String what, T resource) {
    if (closed) {
      closeQuietly(new Step(what, resource));
      throw new IllegalStateException("the demo is shutting down; " + what + " was closed again at once");
    }
    steps.push(new Step(what, resource));
    return resource;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException failure = null;
    while (!steps.isEmpty()) {
      Step s = steps.pop();
      try {
        s.resource.close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        RuntimeException r = new IllegalStateException("could not stop " + s.what + ": " + e.getMessage(), e);
        if (failure == null) {
          failure = r;
        } else {
          failure.addSuppressed(r);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static void closeQuietly(Step s) {
    try {
      s.resource.close();
    } catch (Exception e) {
      // the demo is already failing or stopping; this resource was never in use
    }
  }
}
