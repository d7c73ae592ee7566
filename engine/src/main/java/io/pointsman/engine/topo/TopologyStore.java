package io.pointsman.engine.topo;

import io.pointsman.api.lock.LockSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Typed access to the Vitess-shaped topology. Every write is guarded: by the mod revision of what
 * was read (never a blind write), and by the create revision of each lock in the given
 * {@link LockSet} (so a holder that lost its lock cannot write). A failed lock guard raises
 * {@link io.pointsman.api.errors.LockLostException}; a changed record is re-read and retried a bounded
 * number of times, then raises {@link io.pointsman.api.errors.RecordChangedException}.
 */
public interface TopologyStore {
  /**
   * The lock set of writes no lock guards: bootstrapping topology, as the tools that create
   * keyspaces and cells do, and tests. Recognized by identity, so an empty LockSet that arrived any
   * other way (an action's activity input) is refused with INVALID_ARGUMENT, as the MySQL fence
   * refuses one, instead of writing unfenced.
   */
  LockSet UNLOCKED = new LockSet(List.of());

  TopoKeys keys();

  /** The record with its revisions, or empty when the key does not exist. */
  <T> Optional<Versioned<T>> get(RecordKey<T> key);

  /**
   * The record's revisions without its value, or empty when the key does not exist: what a write
   * that replaces the record whatever it holds needs for its guard, without the record's bytes.
   */
  Optional<RecordRevision> revision(RecordKey<?> key);

  /** The record, or NOT_FOUND naming it. */
  <T> Versioned<T> getRequired(RecordKey<T> key);

  /** Creates the record if absent; ALREADY_EXISTS otherwise. Unfenced: for bootstrapping topology. */
  <T> Versioned<T> create(RecordKey<T> key, T value);

  /** Creates the record if absent under the given locks; ALREADY_EXISTS otherwise. */
  <T> Versioned<T> create(RecordKey<T> key, T value, LockSet locks);

  /**
   * Read-modify-write of an existing record (NOT_FOUND if absent). A mutator that returns a value
   * equal to its input writes nothing. The mutator may run more than once, so it must be pure.
   */
  <T> Versioned<T> update(RecordKey<T> key, UnaryOperator<T> mutator, LockSet locks);

  /**
   * {@link #update} of several records of one type in one step: all are read at once, and the ones
   * the mutator changes are written in one {@link #commit} (so in one transaction within etcd's
   * limits); a record changed meanwhile makes it read all again and retry. The mutator may run more
   * than once per record, so it must be pure.
   *
   * @throws io.pointsman.api.errors.PointsmanException NOT_FOUND naming the first record that does not exist
   */
  <T> void updateAll(List<RecordKey<T>> keys, UnaryOperator<T> mutator, LockSet locks);

  /**
   * {@link #updateAll(List, UnaryOperator, LockSet)} with a mutator of each record's own: the
   * records are read at once and the changed ones written in one commit.
   */
  <T> void updateAll(Map<RecordKey<T>, UnaryOperator<T>> edits, LockSet locks);

  /**
   * {@link #updateAll(Map, LockSet)}, and when that changes any record, each existing record of
   * {@code rewritten} written again as it is, in the same commit (guarded by the revision it is
   * read at, like the edits): nothing it says changes, but everyone watching it hears of a change
   * at the revision of the edits. Vitess's vtgate reads the shard records again only when the
   * SrvVSchema it watches changes, so this is how it learns of denied tables in time.
   */
  <T> void updateAll(Map<RecordKey<T>, UnaryOperator<T>> edits, List<? extends RecordKey<?>> rewritten,
      LockSet locks);

  /**
   * Read-modify-write of a record that may not exist; the mutator returns null to delete it (as
   * Vitess deletes empty routing rules). Returns the new state, empty if deleted or still absent.
   */
  <T> Optional<Versioned<T>> upsert(RecordKey<T> key, Function<Optional<T>, T> mutator, LockSet locks);

  /** Deletes the record whatever its content; false when it did not exist. */
  boolean delete(RecordKey<?> key, LockSet locks);

  /**
   * Applies writes planned from earlier reads, each guarded by its expected mod revision and all by
   * the locks. Within etcd's limits (128 operations, 1.5 MiB per request) this is one transaction;
   * beyond them it is split into parts, each individually guarded and applied in order, so a
   * failure leaves a prefix applied and a re-plan from fresh reads resumes it.
   *
   * @return the etcd revision after the last part
   */
  long commit(List<RecordWrite<?>> writes, LockSet locks);

  /** Keyspace names, sorted. */
  List<String> listKeyspaces();

  /** Shard names of a keyspace, sorted, skipping lock keys; NOT_FOUND if the keyspace does not exist. */
  List<String> listShards(String keyspace);

  /** Cell names, sorted. */
  List<String> listCells();

  /** Tablet aliases of a cell, sorted. */
  List<TabletAlias> listTablets(String cell);

  /**
   * Delivers the record's current state at once and then every change, in order, on a thread of
   * the store's own (never on etcd's event loop). Survives etcd reconnects and compaction.
   */
  <T> TopoWatch watch(RecordKey<T> key, Consumer<Optional<Versioned<T>>> listener);
}
