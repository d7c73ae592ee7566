package io.pointsman.engine.topo;

import io.pointsman.api.errors.PointsmanException;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits writes into parts that fit etcd's per-request limits: each part has at most
 * {@code maxTxnOps} compares (one per lock plus one per write) and stays under the byte budget.
 * Guards (records the writes were planned from, written by none) go into every part: each part
 * must be refused if what it was planned from changed.
 */
final class TxnSplitter {
  private TxnSplitter() {}

  static List<List<FencedTxn.EncodedWrite>> split(
      List<FencedTxn.EncodedWrite> writes, int lockCount, StoreOptions options) {
    List<FencedTxn.EncodedWrite> guards = writes.stream().filter(FencedTxn.EncodedWrite::guardOnly).toList();
    int guardBytes = guards.stream().mapToInt(FencedTxn.EncodedWrite::size).sum();
    int perPart = options.maxTxnOps() - lockCount - guards.size();
    if (perPart < 1) {
      throw PointsmanException.invalidArgument(lockCount + " locks and " + guards.size()
          + " guards leave no room for writes in a transaction of " + options.maxTxnOps() + " operations");
    }
    List<List<FencedTxn.EncodedWrite>> parts = new ArrayList<>();
    List<FencedTxn.EncodedWrite> current = new ArrayList<>(guards);
    int bytes = guardBytes;
    for (FencedTxn.EncodedWrite w : writes) {
      if (w.guardOnly()) {
        continue;
      }
      if (w.size() > options.maxTxnBytes()) {
        throw PointsmanException.invalidArgument("record " + w.key() + " is " + w.size()
            + " bytes, more than one etcd request may carry (" + options.maxTxnBytes() + ")");
      }
      int inPart = current.size() - guards.size();
      if (inPart > 0 && (inPart == perPart || bytes + w.size() > options.maxTxnBytes())) {
        parts.add(current);
        current = new ArrayList<>(guards);
        bytes = guardBytes;
      }
      current.add(w);
      bytes += w.size();
    }
    if (current.size() > guards.size() || parts.isEmpty() && !current.isEmpty()) {
      parts.add(current);
    }
    return parts;
  }
}
