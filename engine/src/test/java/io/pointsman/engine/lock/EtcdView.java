package io.pointsman.engine.lock;

import static io.pointsman.engine.etcd.EtcdClients.bytes;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.topo.TopoPaths;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** What etcd itself says, read with a plain client so tests never trust the code under test. */
final class EtcdView {
  private final Client etcd;

  EtcdView(Client etcd) {
    this.etcd = etcd;
  }

  /** The keys under {@code <dir>/locks/}, oldest first. */
  List<String> lockKeys(String resourceDir) throws Exception {
    return etcd.getKVClient().get(bytes(TopoPaths.locksPrefix(resourceDir)), GetOption.builder()
            .isPrefix(true).withKeysOnly(true).withSortField(GetOption.SortTarget.CREATE).build())
        .get(10, TimeUnit.SECONDS).getKvs().stream()
        .map(kv -> EtcdClients.string(kv.getKey()))
        .toList();
  }

  Optional<KeyValue> get(String key) throws Exception {
    return etcd.getKVClient().get(bytes(key)).get(10, TimeUnit.SECONDS).getKvs().stream().findFirst();
  }

  /** Seconds the lease has left, or -1 when etcd no longer knows it; asking does not renew it. */
  long leaseTtl(long leaseId) throws Exception {
    return etcd.getLeaseClient().timeToLive(leaseId, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS).getTTL();
  }

  /** The lock as etcd has it: lease alive and the key there with the token's create revision and lease. */
  boolean holds(LockToken token) throws Exception {
    Optional<KeyValue> kv = get(token.key());
    return leaseTtl(token.leaseId()) > 0 && kv.isPresent()
        && kv.get().getCreateRevision() == token.createRevision() && kv.get().getLease() == token.leaseId();
  }

  boolean keyGone(LockToken token) throws Exception {
    return get(token.key()).isEmpty();
  }

  /** An empty value is a topodata.Keyspace with every field at its default, as Vitess may store it. */
  void createKeyspace(TopoPaths paths, String keyspace) throws Exception {
    etcd.getKVClient().put(bytes(paths.keyspace(keyspace)), ByteSequence.EMPTY).get(10, TimeUnit.SECONDS);
  }

  /** An empty value is a topodata.Shard with every field at its default. */
  void createShard(TopoPaths paths, String keyspace, String shard) throws Exception {
    etcd.getKVClient().put(bytes(paths.shard(keyspace, shard)), ByteSequence.EMPTY).get(10, TimeUnit.SECONDS);
  }

  void put(String key, String value) throws Exception {
    etcd.getKVClient().put(bytes(key), bytes(value)).get(10, TimeUnit.SECONDS);
  }

  void revoke(long leaseId) throws Exception {
    etcd.getLeaseClient().revoke(leaseId).get(10, TimeUnit.SECONDS);
  }

  void delete(String key) throws Exception {
    etcd.getKVClient().delete(bytes(key)).get(10, TimeUnit.SECONDS);
  }
}
