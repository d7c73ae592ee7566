package io.pointsman.sandbox.stack;

import io.pointsman.api.errors.PointsmanException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;

/**
 * What a stack (or the demo) started, closed in reverse order: a part is closed before the parts it
 * was started on. A part that fails to close does not keep the others running; its failure is
 * reported after all were tried. Closing twice closes nothing twice.
 */
public final class OpenedParts {
  private final Deque<AutoCloseable> parts = new ArrayDeque<>();
  private boolean closed;

  /**
   * @throws PointsmanException FAILED_PRECONDITION when the whole is closed already; {@code part}
   *     is then closed at once, as nothing would close it later
   */
  synchronized void push(AutoCloseable part) {
    if (closed) {
      try {
        part.close();
      } catch (Exception e) {
        // the part came too late to be used; the caller hears of the closed whole below
      }
      throw PointsmanException.failedPrecondition("closed already: a part started now would be left running");
    }
    parts.push(part);
  }

  /**
   * Registers a part under a name its close failure is reported with; returns it for chaining.
   *
   * @throws PointsmanException FAILED_PRECONDITION when the whole is closed already (see {@link #push})
   */
  public <T extends AutoCloseable> T add(String what, T part) {
    Objects.requireNonNull(part, "part");
    push(() -> {
      try {
        part.close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("could not stop " + what + ": " + e.getMessage(), e);
      }
    });
    return part;
  }

  /**
   * @param what names the whole, for the failure's message
   * @throws PointsmanException INTERNAL after every part was tried, when one or more failed to
   *     close: the first as cause, the others suppressed
   */
  public synchronized void closeAll(String what) {
    closed = true;
    List<Exception> failures = new ArrayList<>();
    while (!parts.isEmpty()) {
      try {
        parts.pop().close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        failures.add(e);
      }
    }
    if (!failures.isEmpty()) {
      Exception first = failures.get(0);
      PointsmanException failure = PointsmanException.internal("stopping " + what + " failed: " + first, first);
      failures.subList(1, failures.size()).forEach(failure::addSuppressed);
      throw failure;
    }
  }
}
