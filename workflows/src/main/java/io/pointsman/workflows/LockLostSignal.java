package io.pointsman.workflows;

/**
 * Raised inside workflow code when a step ran into a lost lock (seen by holdLocks or by the step
 * itself). The flow catches it, re-acquires the locks and compensates under the new ones.
 */
final class LockLostSignal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  LockLostSignal(String message, Throwable cause) {
    super(message, cause);
  }
}
