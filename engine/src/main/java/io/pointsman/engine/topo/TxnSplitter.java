package io.pointsman.engine.topo;

import io.pointsman.api.errors.PointsmanException;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits writes into parts that fit etcd's per-request limits: each part has at most
 * {@code maxTxnOps} compares (one per lock plus one per write) and stays under the byte budget.
 */
final class TxnSplitter {
  private TxnSplitter() {}

  static List<List<FencedTxn.EncodedWrite>> split(
      List<FencedTxn.EncodedWrite> writes, int lockCount, StoreOptions options) {
    int perPart = options.maxTxnOps() - lockCount;
    if (perPart < 1) {
      throw PointsmanException.invalidArgument(
          lockCount + " locks leave no room for writes in a transaction of " + options.maxTxnOps() + " operations");
    }
    List<List<FencedTxn.EncodedWrite>> parts = new ArrayList<>();
    List<FencedTxn.EncodedWrite> current = new ArrayList<>();
    int bytes = 0;
    for (FencedTxn.EncodedWrite w : writes) {
      if (w.size() > options.maxTxnBytes()) {
        throw PointsmanException.invalidArgument("record " + w.key() + " is " + w.size()
            + " bytes, more than one etcd request may carry (" + options.maxTxnBytes() + ")");
      }
      if (!current.isEmpty() && (current.size() == perPart || bytes + w.size() > options.maxTxnBytes())) {
        parts.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(w);
      bytes += w.size();
    }
    if (!current.isEmpty()) {
      parts.add(current);
    }
    return parts;
  }
}
