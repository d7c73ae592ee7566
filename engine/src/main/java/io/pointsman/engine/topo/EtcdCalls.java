package io.pointsman.engine.topo;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.etcd.EtcdErrors;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits for jetcd futures with a deadline and maps their failures onto pointsman's error codes. */
final class EtcdCalls {
  private EtcdCalls() {}

  /**
   * @param what describes the call for the error message
   * @param mayHaveApplied whether a timeout leaves the outcome unknown (writes) or not (reads)
   */
  static <T> T await(CompletableFuture<T> future, Duration timeout, String what, boolean mayHaveApplied) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(true);
      throw new PointsmanException(mayHaveApplied ? ErrorCode.UNKNOWN_OUTCOME : ErrorCode.UNAVAILABLE,
          what + " was interrupted", e);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new PointsmanException(mayHaveApplied ? ErrorCode.UNKNOWN_OUTCOME : ErrorCode.UNAVAILABLE,
          what + " got no answer from etcd within " + timeout, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof PointsmanException pe) {
        throw pe;
      }
      // a refused certificate, password or permission is FAILED_PRECONDITION: nothing was applied
      ErrorCode code = EtcdErrors.code(cause, mayHaveApplied ? ErrorCode.UNKNOWN_OUTCOME : ErrorCode.UNAVAILABLE);
      throw new PointsmanException(code, what + " failed: " + EtcdErrors.describe(cause), cause);
    }
  }
}
