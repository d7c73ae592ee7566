package io.pointsman.engine.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.lock.EtcdLockService;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TopoPaths;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A test's own part of the shared test etcd, for the tests that extend it: a client and a fresh root
 * ({@link TestEtcd#freshPaths}), and on top what the test names: a topology store, a lock service, a
 * thread pool for its concurrent callers.
 *
 * <p>JUnit opens them before the subclass's own {@code @BeforeEach} methods and closes them after its
 * {@code @AfterEach} ones, in reverse order: the threads stop first (so none is left calling into a
 * closed service), then the lock service, then the client.
 */
public abstract class EtcdTestFixture {
  /** What a test wants besides the client and its root. */
  public enum Part {
    /** {@link #store}: an {@link EtcdTopologyStore} over the test's root. */
    STORE,
    /** {@link #locks}: an {@link EtcdLockService} over the test's root. */
    LOCKS,
    /** {@link #threads}: a cached pool, stopped (interrupted) after the test. */
    THREADS
  }

  private static final long THREADS_STOP_SECONDS = 10;

  protected Client etcd;
  protected TopoPaths paths;
  protected EtcdTopologyStore store;
  protected EtcdLockService locks;
  protected ExecutorService threads;

  private final Set<Part> parts;

  protected EtcdTestFixture(Part... parts) {
    this.parts = parts.length == 0 ? EnumSet.noneOf(Part.class) : EnumSet.copyOf(List.of(parts));
  }

  @BeforeEach
  protected final void openEtcd() {
    etcd = TestEtcd.client();
    paths = TestEtcd.freshPaths();
    if (parts.contains(Part.STORE)) {
      store = new EtcdTopologyStore(etcd, paths);
    }
    if (parts.contains(Part.LOCKS)) {
      locks = new EtcdLockService(etcd, paths);
    }
    if (parts.contains(Part.THREADS)) {
      threads = Executors.newCachedThreadPool();
    }
  }

  @AfterEach
  protected final void closeEtcd() throws InterruptedException {
    if (threads != null) {
      threads.shutdownNow();
      threads.awaitTermination(THREADS_STOP_SECONDS, TimeUnit.SECONDS);
    }
    if (locks != null) {
      locks.close();
    }
    etcd.close();
  }

  /** A lock key taken the way any holder takes it, past the code under test: a lease and a key attached to it. */
  protected final LockToken takeLock(String resourceDir) throws Exception {
    long lease = etcd.getLeaseClient().grant(30).get(10, TimeUnit.SECONDS).getID();
    String key = TopoPaths.locksPrefix(resourceDir) + lease;
    ByteSequence k = EtcdClients.bytes(key);
    TxnResponse r = etcd.getKVClient().txn()
        .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
        .Then(Op.put(k, EtcdClients.bytes("{}"), PutOption.builder().withLeaseId(lease).build()))
        .commit().get(10, TimeUnit.SECONDS);
    assertThat(r.isSucceeded()).isTrue();
    long createRevision = etcd.getKVClient().get(k).get(10, TimeUnit.SECONDS).getKvs().get(0).getCreateRevision();
    return new LockToken(key, "test lock", lease, createRevision, Duration.ofSeconds(30), Instant.now());
  }
}
