package io.pointsman.engine.lock;

import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.pointsman.engine.etcd.EtcdErrors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting for jetcd futures on our own threads, and telling etcd's answers apart. */
final class Futures {
  private Futures() {}

  /** Waits until the future completes or the {@link System#nanoTime()} deadline passes. */
  static <T> T awaitUntil(CompletableFuture<T> future, long deadlineNanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    return future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  /**
   * Like {@link #awaitUntil} but not cut short by an interrupt, for cleanup that must run even when
   * the caller was interrupted (which is often why it is cleaning up); the interrupt flag is kept.
   */
  static <T> T awaitUninterruptibly(CompletableFuture<T> future, long deadlineNanos)
      throws ExecutionException, TimeoutException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return awaitUntil(future, deadlineNanos);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The failure itself, without the wrappers futures put around it. */
  static Throwable unwrap(Throwable t) {
    Throwable cur = t;
    while ((cur instanceof CompletionException || cur instanceof ExecutionException) && cur.getCause() != null) {
      cur = cur.getCause();
    }
    return cur;
  }

  /** Whether etcd answered "not found", which for a lease means it expired or was revoked. */
  static boolean isNotFound(Throwable t) {
    for (Throwable cur = t; cur != null; cur = cur.getCause()) {
      if (cur instanceof EtcdException e && e.getErrorCode() == ErrorCode.NOT_FOUND) {
        return true;
      }
      if (Status.fromThrowable(cur).getCode() == Status.Code.NOT_FOUND) {
        return true;
      }
    }
    return false;
  }

  /** A short description of a failure for log lines and messages. */
  static String describe(Throwable t) {
    return EtcdErrors.describe(t);
  }
}
