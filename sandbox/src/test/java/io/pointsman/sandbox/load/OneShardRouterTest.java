package io.pointsman.sandbox.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.router.TopologyFixture;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The load tests' world: one unsharded keyspace {@code ks1} with the customer table, and a router serving it. */
abstract class OneShardRouterTest {
  protected TopologyFixture topo;
  protected Router router;
  /** The database of ks1/0. */
  protected String db;

  @BeforeEach
  void startRouter() throws Exception {
    topo = new TopologyFixture();
    db = topo.addKeyspace("ks1", TopologyFixture.unshardedCustomer(), "0").get("0");
    topo.publishServing();
    router = topo.router(Duration.ofSeconds(10));
    assertThat(router.awaitTopology(Duration.ofSeconds(10))).isTrue();
  }

  @AfterEach
  void stopRouter() throws Exception {
    router.close();
    topo.close();
  }
}
