package io.pointsman.engine.concurrent;

import java.util.function.Consumer;

/**
 * {@link FanOut}'s failure rule for work done one item after another: every item is tried even when
 * some fail, then the first failure is thrown with the others added to it as suppressed. For
 * clean-ups (releasing locks) where one failure must not leave the rest undone.
 */
public final class InTurn {
  private InTurn() {}

  /** {@code work} on each item, in the items' order. */
  public static <T> void forEach(Iterable<T> items, Consumer<T> work) {
    RuntimeException failure = null;
    for (T item : items) {
      try {
        work.accept(item);
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
