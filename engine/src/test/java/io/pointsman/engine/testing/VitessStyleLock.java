package io.pointsman.engine.testing;

import static io.pointsman.engine.etcd.EtcdClients.bytes;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A lock taken the way Vitess's etcd2topo takes it, with a plain jetcd client and none of
 * pointsman's code, so tests can check that the two exclude each other. It does not renew its
 * lease: give it a TTL longer than the test.
 */
public final class VitessStyleLock {
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

  private final Client etcd;
  private final String locksPrefix;
  private final long leaseId;
  private final String key;
  private final long revision;

  private VitessStyleLock(Client etcd, String locksPrefix, long leaseId, String key, long revision) {
    this.etcd = etcd;
    this.locksPrefix = locksPrefix;
    this.leaseId = leaseId;
    this.key = key;
    this.revision = revision;
  }

  /**
   * Grants a lease and creates {@code <resourceDir>/locks/<leaseId>} with it: the lock is queued but
   * not necessarily held; see {@link #earlierHolder()} and {@link #awaitTurn(Duration)}.
   */
  public static VitessStyleLock enqueue(Client etcd, String resourceDir, Duration ttl) throws Exception {
    long leaseId = etcd.getLeaseClient().grant(ttl.toSeconds()).get(10, TimeUnit.SECONDS).getID();
    String locksPrefix = resourceDir + "/locks/";
    String key = locksPrefix + leaseId;
    String value = "{\"Action\":\"vtctld-test\",\"HostName\":\"vtctld-0\",\"UserName\":\"vitess\","
        + "\"Time\":\"2025-01-01T00:00:00Z\",\"Options\":{},\"Status\":\"Running\"}";
    TxnResponse created = etcd.getKVClient().txn()
        .If(new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
        .Then(Op.put(bytes(key), bytes(value), PutOption.builder().withLeaseId(leaseId).build()))
        .commit().get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    if (!created.isSucceeded()) {
      throw new IllegalStateException("lock key " + key + " already exists");
    }
    return new VitessStyleLock(etcd, locksPrefix, leaseId, key, created.getHeader().getRevision());
  }

  /** The newest key under {@code locks/} created before ours, which Vitess waits for; empty when we hold the lock. */
  public Optional<KeyValue> earlierHolder() throws Exception {
    GetResponse line = etcd.getKVClient().get(bytes(locksPrefix), GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.MOD)
            .withSortOrder(GetOption.SortOrder.DESCEND)
            .withLimit(1)
            .withMaxModRevision(revision - 1)
            .build())
        .get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    return line.getKvs().stream().findFirst();
  }

  /** Waits, as Vitess does, until no earlier key is left; throws TimeoutException when {@code timeout} passes. */
  public void awaitTurn(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Optional<KeyValue> ahead = earlierHolder(); ahead.isPresent(); ahead = earlierHolder()) {
      CompletableFuture<Void> gone = new CompletableFuture<>();
      // Vitess watches from its own revision, so a delete before the watch starts is not missed
      var watcher = etcd.getWatchClient().watch(ahead.get().getKey(),
          WatchOption.builder().withRevision(revision).build(),
          response -> {
            if (response.getEvents().stream().anyMatch(e -> e.getEventType() == WatchEvent.EventType.DELETE)) {
              gone.complete(null);
            }
          });
      try {
        gone.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        throw new IllegalStateException("watch failed", e);
      } catch (TimeoutException e) {
        throw new TimeoutException("still behind " + ahead.get().getKey() + " after " + timeout);
      } finally {
        watcher.close();
      }
    }
  }

  public void release() throws Exception {
    etcd.getLeaseClient().revoke(leaseId).get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
  }

  public String key() {
    return key;
  }

  public long leaseId() {
    return leaseId;
  }

  public long revision() {
    return revision;
  }
}
