package io.pointsman.engine.lock;

import io.pointsman.api.names.Shown;

/**
 * An acquisition waiting in line: the lock it wants and the key ahead of it, with the holder that
 * key's value names (Vitess's Action, HostName, UserName and Time, and for pointsman the Temporal
 * execution), so an operator sees who to wait for instead of a silent wait.
 *
 * @param resource the lock wanted, e.g. {@code keyspace customer}
 * @param aheadKey the etcd key of the holder (or earlier waiter) ahead
 * @param holder one line naming that holder, from its lock value
 */
public record LockWait(String resource, String aheadKey, String holder) {
  /** One line for progress and logs; the key ahead may be any tool's, so it is shown escaped and cut. */
  public String describe() {
    return "waiting for the lock on " + resource + ", held by " + holder + " (" + Shown.text(aheadKey, 300) + ")";
  }

  /** Told each time an acquisition starts waiting behind another key. */
  @FunctionalInterface
  public interface Listener {
    Listener NONE = wait -> {};

    /** Called on the acquiring thread; must return quickly and must not throw. */
    void onWait(LockWait wait);
  }
}
