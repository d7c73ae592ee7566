package io.pointsman.engine.topo;

import io.pointsman.api.errors.PointsmanException;
import java.time.Duration;

/**
 * Limits of the topology store.
 *
 * @param callTimeout deadline of each etcd call
 * @param maxAttempts how often a read-modify-write is tried when the record keeps changing
 * @param maxTxnOps etcd's {@code --max-txn-ops} (128 by default); one commit part stays within it
 * @param maxTxnBytes stays below etcd's 1.5 MiB request limit with room for the guards
 */
public record StoreOptions(Duration callTimeout, int maxAttempts, int maxTxnOps, int maxTxnBytes) {
  public static final StoreOptions DEFAULT = new StoreOptions(Duration.ofSeconds(10), 32, 128, 1_400_000);

  public StoreOptions {
    if (callTimeout == null || callTimeout.isNegative() || callTimeout.isZero()) {
      throw PointsmanException.invalidArgument("store call timeout must be positive");
    }
    if (maxAttempts < 1 || maxTxnOps < 2 || maxTxnBytes < 1024) {
      throw PointsmanException.invalidArgument("store limits are too small: " + maxAttempts + " attempts, "
          + maxTxnOps + " ops, " + maxTxnBytes + " bytes");
    }
  }

  public StoreOptions withMaxTxnOps(int ops) {
    return new StoreOptions(callTimeout, maxAttempts, ops, maxTxnBytes);
  }
}
