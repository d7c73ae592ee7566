package io.pointsman.engine.topo;

import com.google.protobuf.Message;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.errors.RecordChangedException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.topo.StoredRecords.StoredRecord;
import io.pointsman.engine.topo.codec.EncodedValues;
import io.pointsman.engine.trace.TimingTrace;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * {@link TopologyStore} on etcd with Vitess's binary protobuf records (see {@link TopoCodec}). A
 * replacing write is encoded over the stored bytes its value was read from, kept in
 * {@link StoredBytes} or read back at that revision, so fields pointsman does not model survive.
 * Thread-safe.
 */
public final class EtcdTopologyStore implements TopologyStore {

  private final Client client;
  private final KV kv;
  private final TopoKeys keys;
  private final StoreOptions options;
  private final StoredRecords stored = new StoredRecords(4096, 64L << 20);

  public EtcdTopologyStore(Client client, TopoPaths paths) {
    this(client, paths, StoreOptions.DEFAULT);
  }

  public EtcdTopologyStore(Client client, TopoPaths paths, StoreOptions options) {
    this.client = Objects.requireNonNull(client, "client");
    this.kv = client.getKVClient();
    this.keys = new TopoKeys(paths);
    this.options = Objects.requireNonNull(options, "options");
  }

  @Override
  public TopoKeys keys() {
    return keys;
  }

  @Override
  public <T> Optional<Versioned<T>> get(RecordKey<T> key) {
    GetResponse r = EtcdCalls.await(kv.get(EtcdClients.bytes(key.key())), options.callTimeout(),
        "read of " + key.key(), false);
    if (r.getKvs().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(decode(key, r.getKvs().get(0)));
  }

  @Override
  public Optional<RecordRevision> revision(RecordKey<?> key) {
    GetResponse r = EtcdCalls.await(kv.get(EtcdClients.bytes(key.key()), GetOption.builder().withKeysOnly(true).build()),
        options.callTimeout(), "read of the revision of " + key.key(), false);
    return r.getKvs().stream().findFirst().map(kv -> new RecordRevision(kv.getModRevision(), kv.getCreateRevision()));
  }

  @Override
  public <T> Versioned<T> getRequired(RecordKey<T> key) {
    return get(key).orElseThrow(() -> PointsmanException.notFound(
        key.type().getSimpleName() + " record " + key.key() + " does not exist"));
  }

  @Override
  public <T> Versioned<T> create(RecordKey<T> key, T value) {
    return create(key, value, UNLOCKED);
  }

  @Override
  public <T> Versioned<T> create(RecordKey<T> key, T value, LockSet locks) {
    try {
      commit(List.of(RecordWrite.create(key, value)), locks);
    } catch (RecordChangedException e) {
      throw PointsmanException.alreadyExists(key.type().getSimpleName() + " record " + key.key() + " already exists");
    }
    return getRequired(key);
  }

  @Override
  public <T> Versioned<T> update(RecordKey<T> key, UnaryOperator<T> mutator, LockSet locks) {
    return readModifyWrite(key, current -> {
      if (current.isEmpty()) {
        throw PointsmanException.notFound(key.type().getSimpleName() + " record " + key.key() + " does not exist");
      }
      return mutator.apply(current.get());
    }, locks).orElseThrow();
  }

  @Override
  public <T> void updateAll(List<RecordKey<T>> keys, UnaryOperator<T> mutator, LockSet locks) {
    Map<RecordKey<T>, UnaryOperator<T>> edits = new LinkedHashMap<>();
    keys.forEach(k -> edits.put(k, mutator));
    updateAll(edits, locks);
  }

  @Override
  public <T> void updateAll(Map<RecordKey<T>, UnaryOperator<T>> edits, LockSet locks) {
    updateAll(edits, List.of(), locks);
  }

  @Override
  public <T> void updateAll(Map<RecordKey<T>, UnaryOperator<T>> edits, List<? extends RecordKey<?>> rewritten,
      LockSet locks) {
    List<RecordKey<T>> keys = List.copyOf(edits.keySet());
    RecordChangedException last = null;
    for (int attempt = 1; attempt <= options.maxAttempts(); attempt++) {
      List<RecordWrite<?>> writes = new ArrayList<>();
      // Read beside the edited records, not after them: the same round trip
      List<CompletableFuture<GetResponse>> again = rewritten.stream()
          .map(k -> kv.get(EtcdClients.bytes(k.key()))).toList();
      for (Versioned<T> current : getAll(keys)) {
        T next = edits.get(current.key()).apply(current.value());
        if (!Objects.equals(next, current.value())) {
          writes.add(RecordWrite.replace(current, next));
        }
      }
      if (writes.isEmpty()) {
        again.forEach(r -> r.cancel(false));
        return;
      }
      for (int i = 0; i < rewritten.size(); i++) {
        GetResponse r = EtcdCalls.await(again.get(i), options.callTimeout(), "read of " + rewritten.get(i).key(), false);
        if (!r.getKvs().isEmpty()) {
          writes.add(rewrite(decode(rewritten.get(i), r.getKvs().get(0))));
        }
      }
      try {
        commit(writes, locks);
        return;
      } catch (RecordChangedException e) {
        last = e;
        backoff(attempt);
      }
    }
    throw new RecordChangedException(keys.get(0).key(), "records " + keys.stream().map(RecordKey::key).toList()
        + " kept changing; gave up after " + options.maxAttempts() + " attempts (" + last.getMessage() + ")");
  }

  private static <V> RecordWrite<V> rewrite(Versioned<V> read) {
    return RecordWrite.replace(read, read.value());
  }

  /** Reads every key at once; NOT_FOUND naming the first one missing. */
  private <T> List<Versioned<T>> getAll(List<RecordKey<T>> keys) {
    List<CompletableFuture<GetResponse>> reads = keys.stream().map(k -> kv.get(EtcdClients.bytes(k.key()))).toList();
    List<Versioned<T>> out = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      RecordKey<T> key = keys.get(i);
      GetResponse r = EtcdCalls.await(reads.get(i), options.callTimeout(), "read of " + key.key(), false);
      if (r.getKvs().isEmpty()) {
        throw PointsmanException.notFound(key.type().getSimpleName() + " record " + key.key() + " does not exist");
      }
      out.add(decode(key, r.getKvs().get(0)));
    }
    return out;
  }

  @Override
  public <T> Optional<Versioned<T>> upsert(RecordKey<T> key, Function<Optional<T>, T> mutator, LockSet locks) {
    return readModifyWrite(key, mutator, locks);
  }

  @Override
  public boolean delete(RecordKey<?> key, LockSet locks) {
    return deleteTyped(key, locks);
  }

  private <T> boolean deleteTyped(RecordKey<T> key, LockSet locks) {
    boolean[] existed = {false};
    readModifyWrite(key, current -> {
      existed[0] = current.isPresent();
      return null;
    }, locks);
    return existed[0];
  }

  private <T> Optional<Versioned<T>> readModifyWrite(
      RecordKey<T> key, Function<Optional<T>, T> mutator, LockSet locks) {
    RecordChangedException last = null;
    for (int attempt = 1; attempt <= options.maxAttempts(); attempt++) {
      Optional<Versioned<T>> read = get(key);
      Optional<T> current = read.map(Versioned::value);
      T next = mutator.apply(current);
      if (Objects.equals(next, current.orElse(null))) {
        return read; // nothing to change: no write, like Vitess's NoUpdateNeeded
      }
      long expected = read.map(Versioned::modRevision).orElse(0L);
      try {
        long revision = commit(List.of(new RecordWrite<>(key, expected, next)), locks);
        return next == null ? Optional.empty()
            : Optional.of(new Versioned<>(key, next, revision, read.map(Versioned::createRevision).orElse(revision)));
      } catch (RecordChangedException e) {
        last = e;
        backoff(attempt);
      }
    }
    throw new RecordChangedException(key.key(), "record " + key.key() + " kept changing; gave up after "
        + options.maxAttempts() + " attempts (" + last.getMessage() + ")");
  }

  @Override
  public long commit(List<RecordWrite<?>> writes, LockSet locks) {
    // What each write stores, kept once committed as the record at the commit's revision
    long started = TimingTrace.start();
    Map<FencedTxn.EncodedWrite, StoredRecord> written = new IdentityHashMap<>();
    List<FencedTxn.EncodedWrite> encoded = new ArrayList<>(writes.size());
    EncodedValues values = new EncodedValues();
    for (RecordWrite<?> w : writes) {
      encoded.add(encode(w, written, values));
    }
    long sent = TimingTrace.start();
    TimingTrace.took("etcd.encode", started, () -> encoded.size() + " writes");
    long revision = 0;
    List<List<FencedTxn.EncodedWrite>> parts = TxnSplitter.split(encoded, locks.locks().size(), options);
    for (List<FencedTxn.EncodedWrite> part : parts) {
      revision = commitPart(part, written, locks);
    }
    TimingTrace.took("etcd.txn", sent, () -> encoded.stream().mapToLong(w -> w.value() == null ? 0 : w.value().length)
        .sum() + " bytes in " + parts.size() + " transaction(s)" + (encoded.isEmpty() ? "" : ", first key "
        + encoded.get(0).key()));
    return revision;
  }

  private long commitPart(List<FencedTxn.EncodedWrite> part, Map<FencedTxn.EncodedWrite, StoredRecord> written,
      LockSet locks) {
    long revision = FencedTxn.commit(kv, locks, part, options.callTimeout());
    for (FencedTxn.EncodedWrite w : part) {
      StoredRecord record = written.get(w);
      if (record != null) {
        stored.put(w.key(), revision, record); // the base of a write of what was just written
      }
    }
    return revision;
  }

  @Override
  public List<String> listKeyspaces() {
    return childNames(keys.paths().keyspacesPrefix(), "Keyspace");
  }

  @Override
  public List<String> listShards(String keyspace) {
    getRequired(keys.keyspace(keyspace));
    return childNames(keys.paths().shardsPrefix(keyspace), "Shard");
  }

  @Override
  public List<String> listCells() {
    return childNames(keys.paths().cellsPrefix(), "CellInfo");
  }

  @Override
  public List<TabletAlias> listTablets(String cell) {
    return childNames(keys.paths().tabletsPrefix(cell), "Tablet").stream().map(TabletAlias::parse).toList();
  }

  /**
   * Names of the directories under a prefix that hold a record file of the given name. Lock keys
   * ({@code <dir>/locks/<lease>}) never name a record file, so they are skipped (Vitess #15118).
   */
  private List<String> childNames(String prefix, String recordFile) {
    ByteSequence p = EtcdClients.bytes(prefix);
    GetResponse r = EtcdCalls.await(
        kv.get(p, GetOption.builder().isPrefix(true).withKeysOnly(true).build()),
        options.callTimeout(), "listing of " + prefix, false);
    TreeSet<String> names = new TreeSet<>();
    for (KeyValue entry : r.getKvs()) {
      String rest = EtcdClients.string(entry.getKey()).substring(prefix.length());
      int slash = rest.indexOf('/');
      if (slash > 0 && rest.substring(slash + 1).equals(recordFile)) {
        names.add(rest.substring(0, slash));
      }
    }
    return List.copyOf(names);
  }

  @Override
  public <T> TopoWatch watch(RecordKey<T> key, Consumer<Optional<Versioned<T>>> listener) {
    return EtcdRecordWatch.start(client, key, listener, this::get, this::decode);
  }

  private <T> FencedTxn.EncodedWrite encode(RecordWrite<T> w, Map<FencedTxn.EncodedWrite, StoredRecord> written,
      EncodedValues values) {
    String key = w.key().key();
    if (w.guardOnly()) {
      return new FencedTxn.EncodedWrite(key, w.expectedModRevision(), null, true);
    }
    if (w.isDelete()) {
      return new FencedTxn.EncodedWrite(key, w.expectedModRevision(), null);
    }
    Class<T> type = w.key().type();
    TopoCodec.Encoded e;
    if (w.expectedModRevision() == 0) {
      e = TopoCodec.encode(key, w.value(), null, null, type, values);
    } else {
      StoredRecord base = storedAt(key, w.expectedModRevision());
      T baseValue = base.valueIfSame(base.bytes(), type);
      if (baseValue != null && baseValue == w.value()) {
        // Written again as it is (a rewrite for the watchers): the very bytes, not encoded again. The
        // same instance, not an equal one: a deep comparison would cost every write of a large record.
        e = new TopoCodec.Encoded(base.bytes(), base.message());
      } else {
        Message message = base.message() != null || OwnRecords.owns(type) ? base.message()
            : TopoCodec.parse(key, base.bytes(), type);
        e = TopoCodec.encode(key, w.value(), message, baseValue, type, values);
      }
    }
    FencedTxn.EncodedWrite out = new FencedTxn.EncodedWrite(key, w.expectedModRevision(), e.bytes());
    written.put(out, new StoredRecord(e.bytes(), e.message(), w.value()));
    return out;
  }

  /**
   * The bytes the record had at a revision it was read at. A miss reads the key as of that
   * revision; if it is compacted away or the key had another version then, the write could not
   * pass its guard anyway, so it is reported as a changed record (callers re-read and re-plan).
   */
  private StoredRecord storedAt(String key, long modRevision) {
    StoredRecord kept = stored.get(key, modRevision);
    if (kept != null) {
      return kept;
    }
    GetResponse r;
    try {
      r = EtcdCalls.await(kv.get(EtcdClients.bytes(key), GetOption.builder().withRevision(modRevision).build()),
          options.callTimeout(), "read of " + key + " at revision " + modRevision, false);
    } catch (PointsmanException e) {
      if (e.getCause() instanceof CompactedException) {
        throw new RecordChangedException(key, "record " + key + " was read at revision " + modRevision
            + ", which etcd has compacted away; it must be read again");
      }
      throw e;
    }
    if (r.getKvs().isEmpty() || r.getKvs().get(0).getModRevision() != modRevision) {
      throw new RecordChangedException(key, "record " + key + " has no version at revision " + modRevision
          + " to write over; it must be read again");
    }
    StoredRecord read = StoredRecord.bytesOnly(r.getKvs().get(0).getValue().getBytes());
    stored.put(key, modRevision, read);
    return read;
  }

  /**
   * Decodes what etcd holds, or takes the value already decoded from those bytes, and keeps them
   * as the base of a later write of it.
   */
  private <T> Versioned<T> decode(RecordKey<T> key, KeyValue entry) {
    byte[] bytes = entry.getValue().getBytes();
    StoredRecord kept = stored.get(key.key(), entry.getModRevision());
    T value = kept == null ? null : kept.valueIfSame(bytes, key.type());
    if (value == null) {
      // Written again as it was (a rewrite for the watchers): the value of the newest revision
      // kept, if its bytes are these, without decoding them again.
      StoredRecord newest = stored.newest(key.key());
      value = newest == null ? null : newest.valueIfSame(bytes, key.type());
      if (value != null) {
        stored.put(key.key(), entry.getModRevision(), new StoredRecord(bytes, newest.message(), value));
      }
    }
    if (value == null) {
      TopoCodec.Decoded<T> d = TopoCodec.read(key.key(), bytes, key.type());
      value = d.value();
      stored.put(key.key(), entry.getModRevision(), new StoredRecord(bytes, d.message(), value));
    }
    return new Versioned<>(key, value, entry.getModRevision(), entry.getCreateRevision());
  }

  private static void backoff(int attempt) {
    long maxMillis = Math.min(100, 2L << Math.min(attempt, 6));
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(1, maxMillis + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PointsmanException(io.pointsman.api.errors.ErrorCode.UNAVAILABLE, "interrupted while retrying", e);
    }
  }
}
