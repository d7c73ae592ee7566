package io.pointsman.engine;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.lock.EtcdLockService;
import io.pointsman.engine.lock.LockService;
import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.MySqlFence;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.mysql.PrimaryPositions;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.mysql.ReshardingJournals;
import io.pointsman.engine.mysql.SavedStreams;
import io.pointsman.engine.mysql.SidecarSchema;
import io.pointsman.engine.mysql.StreamWaiter;
import io.pointsman.engine.mysql.VReplicationStreams;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.mysql.JournalTimes;
import io.pointsman.engine.mysql.TableDrops;
import io.pointsman.engine.primary.PrimaryBackend;
import io.pointsman.engine.primary.PrimaryBackends;
import io.pointsman.engine.primary.PrimaryPorts;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.TwoWallGate;
import io.pointsman.engine.primary.direct.DirectPorts;
import io.pointsman.engine.primary.tablet.TabletPorts;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.TopologyStore;
import java.util.Optional;

/**
 * Everything the activities talk to, built once per worker from its configuration: the topology
 * store and locks on etcd, and the shard primaries, through vttablet's RPCs on real Vitess or their
 * MySQL in the sandbox ({@link #primary}). Closing it stops lock renewal and closes the MySQL pools
 * and tablet channels; the etcd client belongs to the caller.
 */
public final class Services implements AutoCloseable {
  private final TopologyStore store;
  private final EtcdLockService locks;
  private final ConnectionPools pools;
  private final PrimaryResolver primaries;
  private final VReplicationStreams streams;
  private final StreamWaiter waiter;
  private final PrimaryPositions positions;
  private final ReshardingJournals journals;
  private final WriteBarrier barrier;
  private final MySqlFence fence;
  private final SavedStreams saved;
  private final TabletManagerClient tablets;
  private final TabletPorts tabletPorts;
  private final PrimaryBackends backends;

  /** Primaries served as their records say (vttablet RPCs or direct MySQL), tablet RPCs with defaults. */
  public Services(Client etcd, TopoPaths paths, MySqlOptions mysql) {
    this(etcd, paths, mysql, TabletRpcOptions.DEFAULTS, PrimaryBackend.AUTO);
  }

  public Services(Client etcd, TopoPaths paths, MySqlOptions mysql, TabletRpcOptions tabletRpc, PrimaryBackend backend) {
    this(etcd, paths, mysql, tabletRpc, backend, false);
  }

  /**
   * @param barrierBehindTablets whether pointsman's MySQL write barrier also goes up behind
   *     vttablet's own wall on a real cluster ({@link TwoWallGate}); the account in {@code mysql}
   *     must then reach the primaries' MySQL
   */
  public Services(Client etcd, TopoPaths paths, MySqlOptions mysql, TabletRpcOptions tabletRpc, PrimaryBackend backend,
      boolean barrierBehindTablets) {
    this.store = new EtcdTopologyStore(etcd, paths);
    this.locks = new EtcdLockService(etcd, paths);
    this.pools = new ConnectionPools(mysql);
    SidecarSchema schema = new SidecarSchema(pools);
    this.fence = new MySqlFence(pools, schema, () -> etcdRevision(etcd));
    this.primaries = new PrimaryResolver(store);
    this.streams = new VReplicationStreams(pools, fence, schema);
    this.waiter = new StreamWaiter(streams);
    this.positions = new PrimaryPositions(pools);
    this.journals = new ReshardingJournals(pools, fence, schema);
    this.barrier = new WriteBarrier(pools, fence);
    this.saved = new SavedStreams(pools, fence, schema);
    this.tablets = new TabletManagerClient(tabletRpc);
    this.tabletPorts = TabletPorts.create(store, tablets, Optional.of(locks));
    PrimaryPorts direct = DirectPorts.create(primaries, streams, saved, waiter, positions, journals,
        new JournalTimes(pools, schema), barrier, new TableDrops(pools, fence), pools);
    PrimaryPorts tablet = tabletPorts.ports();
    if (barrierBehindTablets) {
      tablet = tablet.withWriteGate(new TwoWallGate(tablet.writeGate(), direct.writeGate()));
    }
    this.backends = new PrimaryBackends(backend, direct, tablet, tabletPorts.primaries()::servesGrpc);
  }

  /** Whether vttablet's RPCs serve the shard's primary (real Vitess), rather than its MySQL directly. */
  public boolean byTablet(ShardRef shard) {
    return backends.byTablet(shard);
  }

  /** The ports vttablets serve, with their resolver and fence. */
  public TabletPorts tabletPorts() {
    return tabletPorts;
  }

  /** What a step asks of the shard's primary, served by vttablet or by its MySQL (see {@link PrimaryBackends}). */
  public PrimaryPorts primary(ShardRef shard) {
    return backends.of(shard);
  }

  /** The tablet-manager client (its channels are opened on first use). */
  public TabletManagerClient tablets() {
    return tablets;
  }

  /** The etcd cluster's current revision (a count-only read), for the fence to tell a restored etcd. */
  private static long etcdRevision(Client etcd) {
    try {
      return etcd.getKVClient().get(ByteSequence.from("/", java.nio.charset.StandardCharsets.UTF_8),
          GetOption.builder().withCountOnly(true).build()).get(5, java.util.concurrent.TimeUnit.SECONDS)
          .getHeader().getRevision();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw PointsmanException.unavailable("interrupted while reading etcd's revision", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw PointsmanException.unavailable("could not read etcd's revision", e);
    }
  }

  public TopologyStore store() {
    return store;
  }

  public LockService locks() {
    return locks;
  }

  public ConnectionPools pools() {
    return pools;
  }

  public PrimaryResolver primaries() {
    return primaries;
  }

  public VReplicationStreams streams() {
    return streams;
  }

  public StreamWaiter waiter() {
    return waiter;
  }

  public PrimaryPositions positions() {
    return positions;
  }

  public ReshardingJournals journals() {
    return journals;
  }

  public WriteBarrier barrier() {
    return barrier;
  }

  public SavedStreams savedStreams() {
    return saved;
  }

  public MySqlFence fence() {
    return fence;
  }

  @Override
  public void close() {
    locks.close();
    pools.close();
    tablets.close();
  }
}
