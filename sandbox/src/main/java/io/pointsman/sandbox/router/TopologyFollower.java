package io.pointsman.sandbox.router;

import io.pointsman.engine.topo.RecordKey;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.TopoWatch;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.trace.TimingTrace;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the records routing depends on and publishes a new {@link RoutingSnapshot} after every
 * change. What is watched follows from what was read: the cell's SrvVSchema names the keyspaces;
 * each keyspace's SrvKeyspace names the shards its partitions reference; each Shard names its
 * primary tablet. Shards that no partition references serve nothing, so they are not watched; a
 * Reshard target shard becomes watched when a switch adds it to SrvKeyspace. Records that stop being
 * referenced stop being watched.
 *
 * <p>Routing rules come from the cell's SrvVSchema, which is what vtgate reads. The global
 * RoutingRules record is watched only to report when the two disagree: a hand-driven switch that
 * updates RoutingRules but forgets to rebuild SrvVSchema moves no traffic, in Vitess as here.
 *
 * <p>All routing state lives on one thread; watch callbacks only hand their value over to it. The
 * comparison of the two rule records runs on another, after each publish.
 */
final class TopologyFollower implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TopologyFollower.class);

  private final TopologyStore store;
  private final TopoKeys keys;
  private final String cell;
  private final SnapshotBoard board;
  private final ExecutorService loop;
  // Only touched on `loop`:
  private final Map<String, Slot> watches = new HashMap<>();
  private final Map<String, Optional<Object>> records = new HashMap<>();
  private RoutingSnapshot published;
  // The comparison of the served and the global rules runs on a thread of its own: at a thousand
  // tables it compares 9000 rules, and on `loop` it would hold up the next SrvVSchema's publish
  // (a switch changes both records in one commit). Only the newest pair waiting is compared.
  private final ExecutorService reporter;
  private final AtomicReference<RulePair> toCompare = new AtomicReference<>();
  // Only touched on `reporter`:
  private boolean rulesDiffer;
  private Object comparedServed; // the two rule records last compared, by identity
  private Object comparedStored;

  /** The served and the global rule records as one snapshot of them had them. */
  private record RulePair(Optional<Object> served, Optional<Object> global) {}

  TopologyFollower(TopologyStore store, String cell, SnapshotBoard board) {
    this.store = store;
    this.keys = store.keys();
    this.cell = cell;
    this.board = board;
    this.published = RoutingSnapshot.empty(cell, keys);
    this.loop = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "router-topology " + cell);
      t.setDaemon(true);
      return t;
    });
    this.reporter = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "router-rules-report " + cell);
      t.setDaemon(true);
      return t;
    });
  }

  void start() {
    submit(this::reconcileAndPublish);
  }

  private void reconcileAndPublish() {
    Map<String, RecordKey<?>> needed = needed();
    watches.keySet().removeIf(key -> {
      if (needed.containsKey(key)) {
        return false;
      }
      log.debug("router stops watching {}", key);
      watches.get(key).watch.close();
      records.remove(key);
      return true;
    });
    needed.values().forEach(this::ensureWatched);
    int pending = (int) watches.keySet().stream().filter(k -> !records.containsKey(k)).count();
    published = new RoutingSnapshot(published.version() + 1, cell, keys, records, pending, published);
    board.publish(published);
    Optional<Object> served = records.get(keys.srvVSchema(cell).key());
    Optional<Object> global = records.get(keys.routingRules().key());
    if (served != null && global != null) { // else not both loaded yet
      toCompare.set(new RulePair(served, global));
      try {
        reporter.execute(this::reportRuleDivergence);
      } catch (RejectedExecutionException e) {
        // closed: nothing left to report
      }
    }
  }

  /** The keys routing needs, derived from the records read so far. */
  private Map<String, RecordKey<?>> needed() {
    Map<String, RecordKey<?>> needed = new LinkedHashMap<>();
    RecordKey<SrvVSchema> srvKey = keys.srvVSchema(cell);
    needed.put(srvKey.key(), srvKey);
    RecordKey<RoutingRules> rulesKey = keys.routingRules();
    needed.put(rulesKey.key(), rulesKey);
    value(srvKey).ifPresent(srv -> srv.keyspaces().keySet().forEach(ks -> {
      RecordKey<SrvKeyspace> skKey = keys.srvKeyspace(cell, ks);
      needed.put(skKey.key(), skKey);
      value(skKey).ifPresent(sk -> {
        for (KeyspacePartition p : sk.partitions()) {
          for (ShardReference ref : p.shardReferences()) {
            RecordKey<Shard> shardKey = keys.shard(ks, ref.name());
            needed.put(shardKey.key(), shardKey);
            value(shardKey).map(Shard::primaryAlias).filter(Objects::nonNull).ifPresent(alias -> {
              var tabletKey = keys.tablet(alias);
              needed.put(tabletKey.key(), tabletKey);
            });
          }
        }
      });
    }));
    return needed;
  }

  private <T> void ensureWatched(RecordKey<T> key) {
    if (watches.containsKey(key.key())) {
      return;
    }
    log.debug("router starts watching {}", key);
    // The store delivers on a thread of its own; hand over to ours so state has one owner.
    Slot slot = new Slot();
    slot.watch = store.watch(key, value -> submit(() -> onChange(slot, key, value)));
    watches.put(key.key(), slot);
  }

  private <T> void onChange(Slot slot, RecordKey<T> key, Optional<Versioned<T>> value) {
    if (watches.get(key.key()) != slot) {
      return; // from a watch closed since (maybe replaced by a newer one for the same key): stale
    }
    records.put(key.key(), value.map(Versioned::value));
    long started = TimingTrace.start();
    reconcileAndPublish();
    TimingTrace.took("router.publish", started, () -> "cell " + cell + " after " + key.key());
  }

  private <T> Optional<T> value(RecordKey<T> key) {
    Optional<Object> v = records.get(key.key());
    return v == null ? Optional.empty() : v.map(key.type()::cast);
  }

  private void reportRuleDivergence() {
    RulePair pair = toCompare.getAndSet(null);
    if (pair == null) {
      return; // compared by an earlier run of this already
    }
    Optional<Object> srv = pair.served();
    Optional<Object> global = pair.global();
    if (srv.orElse(null) == comparedServed && global.orElse(null) == comparedStored) {
      return; // neither changed since they were compared: 9000 rules at a thousand tables
    }
    comparedServed = srv.orElse(null);
    comparedStored = global.orElse(null);
    var served = srv.map(v -> ((SrvVSchema) v).routingRules()).orElse(RoutingRules.EMPTY).asMap();
    var stored = global.map(v -> ((RoutingRules) v).asMap()).orElse(Map.of());
    boolean differ = !served.equals(stored);
    if (differ != rulesDiffer) {
      rulesDiffer = differ;
      if (differ) {
        log.info("cell {}: SrvVSchema routing rules differ from the global RoutingRules; routing follows "
            + "SrvVSchema, as vtgate does, until it is rebuilt", cell);
      } else {
        log.info("cell {}: SrvVSchema routing rules match the global RoutingRules again", cell);
      }
    }
  }

  private void submit(Runnable task) {
    try {
      loop.execute(() -> {
        try {
          task.run();
        } catch (RuntimeException e) {
          log.warn("router topology update failed: {}", e.toString());
        }
      });
    } catch (RejectedExecutionException e) {
      // closed: nothing left to update
    }
  }

  /** One watch's identity, so values from a watch that was closed and replaced are told apart. */
  private static final class Slot {
    TopoWatch watch; // set on `loop` before any value of it is handled there
  }

  @Override
  public void close() {
    submit(() -> {
      watches.values().forEach(slot -> slot.watch.close());
      watches.clear();
    });
    loop.shutdown();
    try {
      if (!loop.awaitTermination(5, TimeUnit.SECONDS)) {
        loop.shutdownNow();
      }
    } catch (InterruptedException e) {
      loop.shutdownNow();
      Thread.currentThread().interrupt();
    }
    reporter.shutdownNow();
  }
}
