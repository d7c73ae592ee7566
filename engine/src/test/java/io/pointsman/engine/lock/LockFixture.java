package io.pointsman.engine.lock;

import io.pointsman.engine.testing.EtcdTestFixture;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;

/**
 * The lock tests' start: the etcd fixture, and the keyspace {@code customer} they lock, stored with
 * an empty value as Vitess may store it. {@link #view} reads etcd past the code under test.
 */
abstract class LockFixture extends EtcdTestFixture {
  /** How long the tests wait for what must happen, with room for a loaded machine. */
  protected static final Duration PATIENT = Duration.ofSeconds(30);

  protected EtcdView view;

  LockFixture(Part... parts) {
    super(parts);
  }

  @BeforeEach
  protected final void createCustomerKeyspace() throws Exception {
    view = new EtcdView(etcd);
    view.createKeyspace(paths, "customer");
  }
}
