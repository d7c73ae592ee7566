package io.pointsman.engine.testing;

import io.etcd.jetcd.Client;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.topo.TopoPaths;
import java.util.UUID;

/**
 * The shared test etcd, with a fresh root per test so tests never see each other's keys:
 * {@code /pointsman-test/<uuid>/global} and {@code /pointsman-test/<uuid>/<cell>}.
 */
public final class TestEtcd {
  private TestEtcd() {}

  public static Client client() {
    return client(TestServices.etcdEndpoint());
  }

  public static Client client(String endpoint) {
    return EtcdClients.create(EtcdOptions.builder().endpoints(endpoint).build());
  }

  public static TopoPaths freshPaths() {
    String base = "/pointsman-test/" + UUID.randomUUID();
    return new TopoPaths(base + "/global", base);
  }
}
