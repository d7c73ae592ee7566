package io.pointsman.engine.switching;

import io.pointsman.api.errors.RecordChangedException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.topo.RecordKey;
import io.pointsman.engine.topo.RecordWrite;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.KeyspaceRoutingRules;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.ShardRoutingRules;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.trace.TimingTrace;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * Vitess's RebuildSrvVSchema: the serving VSchema of a cell is the keyspaces' VSchemas plus the
 * global routing, shard routing, keyspace routing and mirror rules, rebuilt in the cells given
 * (which is how per-cell read switching works: the rules are global, only the rebuilt cells pick
 * them up). Unlike Vitess it never writes blind: each cell's record is replaced only at the
 * revision it was read at, only under the locks, and only if every record the build was made from
 * (each keyspace's VSchema and each set of rules) is still as it was read. Guarding the cell
 * record alone is not enough: a build read before another switch changed the rules and rebuilt,
 * with the cells read after, would put the stale rules back in every cell while the other switch
 * reports success.
 */
public final class SrvVSchemaBuilder {
  /** Rebuilds re-planned after losing a race with another writer before the error is passed on. */
  private static final int ATTEMPTS = 5;

  private final TopologyStore store;

  public SrvVSchemaBuilder(TopologyStore store) {
    this.store = store;
  }

  /** What a rebuild writes and the records it was built from. */
  public record Build(SrvVSchema srvVSchema, List<RecordWrite<?>> inputs) {
    public Build {
      inputs = List.copyOf(inputs);
    }
  }

  /** The SrvVSchema that the global records describe now. */
  public SrvVSchema build() {
    return read().srvVSchema();
  }

  /** Reads the global records and builds from them, keeping a guard of each record read. */
  public Build read() {
    return read(UnaryOperator.identity());
  }

  /**
   * Reads the global records and builds from them with the routing rules edited by {@code edit}:
   * the build's inputs then carry the rules' write (replaced, created, or deleted when no rule is
   * left, as Vitess leaves no record for no rules) in place of their guard, so that {@link #write}
   * saves the rules and serves them in one commit.
   */
  public Build read(UnaryOperator<RoutingRules> edit) {
    return read(edit, UnaryOperator.identity());
  }

  /**
   * As {@link #read(UnaryOperator)}, with the mirror rules edited by {@code mirrorEdit} too (their
   * record written, or deleted when no rule is left, in the same commit).
   */
  public Build read(UnaryOperator<RoutingRules> edit, UnaryOperator<MirrorRules> mirrorEdit) {
    List<String> names = store.listKeyspaces();
    // Every record at once: each read is a round trip, and a write switch rebuilds inside its window.
    List<Optional<Versioned<VSchema>>> vschemas = new ArrayList<>(Collections.nCopies(names.size(), null));
    AtomicReference<Optional<Versioned<RoutingRules>>> routing = new AtomicReference<>();
    AtomicReference<Optional<Versioned<ShardRoutingRules>>> shard = new AtomicReference<>();
    AtomicReference<Optional<Versioned<KeyspaceRoutingRules>>> keyspace = new AtomicReference<>();
    AtomicReference<Optional<Versioned<MirrorRules>>> mirror = new AtomicReference<>();
    List<Runnable> reads = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      int at = i;
      reads.add(() -> vschemas.set(at, store.get(store.keys().vschema(names.get(at)))));
    }
    reads.add(() -> routing.set(store.get(store.keys().routingRules())));
    reads.add(() -> shard.set(store.get(store.keys().shardRoutingRules())));
    reads.add(() -> keyspace.set(store.get(store.keys().keyspaceRoutingRules())));
    reads.add(() -> mirror.set(store.get(store.keys().mirrorRules())));
    FanOut.forEach(reads, Runnable::run);
    Optional<Versioned<RoutingRules>> read = routing.get();
    Optional<Versioned<ShardRoutingRules>> shardRules = shard.get();
    Optional<Versioned<KeyspaceRoutingRules>> keyspaceRules = keyspace.get();
    Optional<Versioned<MirrorRules>> mirrorRules = mirror.get();

    List<RecordWrite<?>> inputs = new ArrayList<>();
    Map<String, VSchema> keyspaces = new TreeMap<>();
    for (int i = 0; i < names.size(); i++) {
      Optional<Versioned<VSchema>> vschema = vschemas.get(i);
      inputs.add(RecordWrite.unchanged(store.keys().vschema(names.get(i)), vschema));
      keyspaces.put(names.get(i), vschema.map(Versioned::value).orElse(new VSchema(false, null, null)));
    }
    RoutingRules current = read.map(Versioned::value).orElse(RoutingRules.EMPTY);
    RoutingRules next = edit.apply(current);
    inputs.add(rulesWrite(store.keys().routingRules(), read, current, next, next.rules().isEmpty()));
    inputs.add(RecordWrite.unchanged(store.keys().shardRoutingRules(), shardRules));
    // Served as their records hold them, as Vitess's rebuild does: kept from the cell's previous
    // SrvVSchema instead, a cell without one would serve none, and rules applied with
    // --skip-rebuild (or removed from the record) would never reach the cells.
    inputs.add(RecordWrite.unchanged(store.keys().keyspaceRoutingRules(), keyspaceRules));
    MirrorRules currentMirror = mirrorRules.map(Versioned::value).orElse(MirrorRules.EMPTY);
    MirrorRules nextMirror = mirrorEdit.apply(currentMirror);
    inputs.add(rulesWrite(store.keys().mirrorRules(), mirrorRules, currentMirror, nextMirror,
        nextMirror.rules().isEmpty()));
    SrvVSchema srv = new SrvVSchema(keyspaces, next,
        shardRules.map(Versioned::value).orElse(ShardRoutingRules.EMPTY),
        keyspaceRules.map(Versioned::value).orElse(KeyspaceRoutingRules.EMPTY), nextMirror);
    return new Build(srv, inputs);
  }

  /** A set of rules as edited: a guard when unchanged; else created, replaced, or deleted when {@code empty}. */
  private static <T> RecordWrite<T> rulesWrite(RecordKey<T> key, Optional<Versioned<T>> read, T current, T next,
      boolean empty) {
    if (next.equals(current)) {
      return RecordWrite.unchanged(key, read);
    }
    if (read.isEmpty()) {
      return RecordWrite.create(key, next);
    }
    return empty ? RecordWrite.delete(read.get()) : RecordWrite.replace(read.get(), next);
  }

  /**
   * Each rebuilt cell's SrvVSchema as it stands after a rebuild's commit: at the commit's revision
   * when the rebuild wrote it, else as it was read.
   */
  public record Rebuilt(List<Versioned<SrvVSchema>> cells) {
    public Rebuilt {
      cells = List.copyOf(cells);
    }
  }

  /**
   * Rebuilds the given cells (all cells when empty), fenced by the locks; a build that lost a race
   * with another writer of its inputs is read and made again, a bounded number of times.
   */
  public Rebuilt rebuild(List<String> cells, LockSet locks) {
    return rebuild(UnaryOperator.identity(), cells, locks);
  }

  /**
   * Edits the routing rules and rebuilds the given cells from them in one fenced commit, as {@link
   * #rebuild(List, LockSet)}. Vitess saves the rules and then rebuilds, reading them again; one read
   * and one etcd transaction instead of two of each matter at a thousand tables (nine rules each),
   * where every read and write of the rules costs milliseconds inside the write window. A rebuild
   * re-planned after a lost race applies {@code edit} again to the rules it then reads.
   */
  public Rebuilt rebuild(UnaryOperator<RoutingRules> edit, List<String> cells, LockSet locks) {
    return rebuild(edit, UnaryOperator.identity(), cells, locks);
  }

  /**
   * As {@link #rebuild(UnaryOperator, List, LockSet)}, with the mirror rules edited in the same
   * commit. Vitess saves the mirror rules and rebuilds before it changes the routing rules; here
   * both reach etcd and the cells at once, and the switch reads the mirror rules once, with the
   * other inputs, instead of once before the rebuild and again inside it.
   */
  public Rebuilt rebuild(UnaryOperator<RoutingRules> edit, UnaryOperator<MirrorRules> mirrorEdit, List<String> cells,
      LockSet locks) {
    for (int attempt = 1; ; attempt++) {
      try {
        // The cells' revisions are read beside the build's inputs, not after them, and without
        // their values: at a thousand tables each is a third of a megabyte, and a write switch
        // rebuilds inside its window. When the rules change, every cell rebuilt is written
        // anyway; only a build that changes no rule compares each cell with it, reading it then.
        long started = TimingTrace.start();
        AtomicReference<Build> build = new AtomicReference<>();
        AtomicReference<List<Cell>> served = new AtomicReference<>();
        FanOut.forEach(List.<Runnable>of(() -> build.set(read(edit, mirrorEdit)),
            () -> served.set(served(cells, false))), Runnable::run);
        if (build.get().inputs().stream().allMatch(RecordWrite::guardOnly)) {
          served.set(served(served.get().stream().map(Cell::name).toList(), true));
        }
        long read = TimingTrace.start();
        TimingTrace.took("srvvschema.read", started, () -> served.get().size() + " cell(s)");
        Rebuilt rebuilt = writeInto(build.get(), served.get(), locks);
        int tried = attempt;
        TimingTrace.took("srvvschema.write", read, () -> "attempt " + tried);
        return rebuilt;
      } catch (RecordChangedException e) {
        if (attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /**
   * Writes every cell's SrvVSchema again as it is, guarded by the revision it is read at: nothing
   * served changes, but each watcher hears of a change. vtgate then clears its plan cache and reads
   * the shard records again (see {@link TopologySwitcher#changeRouting}).
   */
  private void rewrite(LockSet locks) {
    List<RecordWrite<?>> writes = new ArrayList<>();
    for (Optional<Versioned<SrvVSchema>> served
        : FanOut.map(store.listCells(), cell -> store.get(store.keys().srvVSchema(cell)))) {
      served.ifPresent(v -> writes.add(RecordWrite.replace(v, v.value())));
    }
    if (!writes.isEmpty()) {
      store.commit(writes, locks);
    }
  }

  /**
   * As {@link #rewrite(LockSet)}, right after a rebuild: the cells it served are written again at
   * the revisions it left them at, without reading them back (a third of a megabyte each at a
   * thousand tables). If any changed since, or the rebuild's commit was split over several
   * revisions, nothing is written by that attempt and the cells are read and written as
   * {@link #rewrite(LockSet)} does.
   */
  public void rewrite(Rebuilt after, LockSet locks) {
    if (after.cells().isEmpty()) {
      rewrite(locks);
      return;
    }
    try {
      store.commit(after.cells().stream().<RecordWrite<?>>map(v -> RecordWrite.replace(v, v.value())).toList(), locks);
    } catch (RecordChangedException e) {
      rewrite(locks);
    }
  }

  /**
   * Writes a build into the cells whose record differs from it, in one commit that also guards
   * every record the build was made from (or writes it, for rules the build edited): if any changed
   * since, nothing is written ({@link RecordChangedException}).
   */
  public void write(Build build, List<String> cells, LockSet locks) {
    writeInto(build, served(cells, true), locks);
  }

  /**
   * A cell a build is written into: its SrvVSchema's revisions as read (0: none yet), and its
   * value when it was read (null when only its revisions were).
   */
  private record Cell(String name, long modRevision, long createRevision, SrvVSchema value) {}

  /** Reads the records, or only the revisions, of the cells given (all cells when empty). */
  private List<Cell> served(List<String> cells, boolean values) {
    List<String> targets = cells.isEmpty() ? store.listCells() : cells;
    return FanOut.map(targets, cell -> {
      RecordKey<SrvVSchema> key = store.keys().srvVSchema(cell);
      if (values) {
        return store.get(key).map(v -> new Cell(cell, v.modRevision(), v.createRevision(), v.value()))
            .orElse(new Cell(cell, 0, 0, null));
      }
      return store.revision(key).map(r -> new Cell(cell, r.modRevision(), r.createRevision(), null))
          .orElse(new Cell(cell, 0, 0, null));
    });
  }

  private Rebuilt writeInto(Build build, List<Cell> served, LockSet locks) {
    SrvVSchema srv = build.srvVSchema();
    List<RecordWrite<?>> cellWrites = new ArrayList<>();
    List<Cell> written = new ArrayList<>();
    List<Versioned<SrvVSchema>> after = new ArrayList<>();
    for (Cell cell : served) {
      RecordKey<SrvVSchema> key = store.keys().srvVSchema(cell.name());
      if (cell.value() != null && cell.value().equals(srv)) {
        after.add(new Versioned<>(key, cell.value(), cell.modRevision(), cell.createRevision()));
        continue;
      }
      // Guarded by the revision read (0: must not exist yet); encoded over the bytes at that
      // revision, which the store keeps or reads at it.
      cellWrites.add(new RecordWrite<>(key, cell.modRevision(), srv));
      written.add(cell);
    }
    if (!cellWrites.isEmpty() || build.inputs().stream().anyMatch(w -> !w.guardOnly())) {
      // The inputs first: records too large for one etcd transaction are split over several in
      // this order, and then the rules are saved before any cell serves them, as Vitess orders it.
      List<RecordWrite<?>> writes = new ArrayList<>(build.inputs());
      writes.addAll(cellWrites);
      long revision = store.commit(writes, locks);
      for (int i = 0; i < cellWrites.size(); i++) {
        Cell cell = written.get(i);
        after.add(new Versioned<>(store.keys().srvVSchema(cell.name()), srv, revision,
            cell.modRevision() == 0 ? revision : cell.createRevision()));
      }
    }
    return new Rebuilt(after);
  }
}
