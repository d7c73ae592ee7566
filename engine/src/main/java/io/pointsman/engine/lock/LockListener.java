package io.pointsman.engine.lock;

/** Told once when a held lock is lost. */
@FunctionalInterface
public interface LockListener {
  /** A listener that does nothing; the loss is still logged and completes {@link HeldLock#lossFuture()}. */
  LockListener NONE = loss -> {};

  /**
   * Called on a thread of the lock service, never on an etcd client thread, so it may block
   * briefly; it must not assume the lock can be regained.
   *
   * @param loss which lock was lost and why
   */
  void onLockLost(LockLoss loss);
}
