package io.pointsman.engine.topo;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.errors.RecordChangedException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.etcd.EtcdClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One guarded etcd transaction: If every lock key still has its create revision and every record
 * its expected mod revision, Then apply the writes, Else read them all back so a lost lock is told
 * apart from a changed record. This is the fencing of docs/locks.md §7: check and write happen at one
 * revision, so a holder whose lease expired can never write.
 */
final class FencedTxn {
  /** A write already encoded. */
  record EncodedWrite(String key, long expectedModRevision, byte[] value, boolean guardOnly) {
    EncodedWrite(String key, long expectedModRevision, byte[] value) {
      this(key, expectedModRevision, value, false);
    }

    int size() {
      return key.length() + (value == null ? 0 : value.length) + 32;
    }
  }

  private FencedTxn() {}

  /** Commits and returns the revision of the transaction; throws LockLost or RecordChanged when guards fail. */
  static long commit(KV kv, LockSet locks, List<EncodedWrite> writes, Duration timeout) {
    if (locks.isEmpty() && locks != TopologyStore.UNLOCKED) {
      throw PointsmanException.invalidArgument("the guarded write of " + describe(writes)
          + " must run under the locks that guard it, but none were given; nothing was written");
    }
    List<Cmp> guards = new ArrayList<>();
    List<Op> orElse = new ArrayList<>();
    for (LockToken lock : locks.locks()) {
      ByteSequence k = EtcdClients.bytes(lock.key());
      guards.add(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(lock.createRevision())));
      orElse.add(Op.get(k, GetOption.DEFAULT));
    }
    List<Op> then = new ArrayList<>();
    for (EncodedWrite w : writes) {
      ByteSequence k = EtcdClients.bytes(w.key());
      guards.add(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(w.expectedModRevision())));
      orElse.add(Op.get(k, GetOption.DEFAULT));
      if (w.guardOnly()) {
        continue;
      }
      then.add(w.value() == null
          ? Op.delete(k, DeleteOption.DEFAULT)
          : Op.put(k, ByteSequence.from(w.value()), PutOption.DEFAULT));
    }
    TxnResponse r = EtcdCalls.await(
        kv.txn().If(guards.toArray(Cmp[]::new)).Then(then.toArray(Op[]::new)).Else(orElse.toArray(Op[]::new))
            .commit(),
        timeout, "guarded write of " + describe(writes), true);
    if (r.isSucceeded()) {
      return r.getHeader().getRevision();
    }
    throw classify(locks, writes, r);
  }

  private static RuntimeException classify(LockSet locks, List<EncodedWrite> writes, TxnResponse r) {
    var gets = r.getGetResponses();
    int i = 0;
    for (LockToken lock : locks.locks()) {
      List<KeyValue> kvs = gets.get(i++).getKvs();
      if (kvs.isEmpty()) {
        return new LockLostException(lock.key(),
            "lock on " + lock.resource() + " is lost: its key " + lock.key() + " is gone (lease expired or revoked)");
      }
      if (kvs.get(0).getCreateRevision() != lock.createRevision()) {
        return new LockLostException(lock.key(), "lock on " + lock.resource() + " is lost: its key was re-created"
            + " (create revision " + kvs.get(0).getCreateRevision() + ", ours " + lock.createRevision() + ")");
      }
    }
    for (EncodedWrite w : writes) {
      List<KeyValue> kvs = gets.get(i++).getKvs();
      long now = kvs.isEmpty() ? 0 : kvs.get(0).getModRevision();
      if (now != w.expectedModRevision()) {
        return new RecordChangedException(w.key(), "record " + w.key() + " changed since it was read (revision "
            + w.expectedModRevision() + ", now " + now + ")");
      }
    }
    return new RecordChangedException(writes.isEmpty() ? "" : writes.get(0).key(),
        "guarded write failed although every guard reads back as expected; it raced another writer");
  }

  private static String describe(List<EncodedWrite> writes) {
    if (writes.size() == 1) {
      return writes.get(0).key();
    }
    return writes.size() + " records";
  }
}
