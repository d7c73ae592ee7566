package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.KeyRange;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two executions of one critical section under the same, still valid, locks (a worker paused past
 * its workflow task's or activity's timeout, replaced, then resumed): the fencing token is the
 * same, and only the epoch tells the stale pass from the new one (docs/locks.md §8).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StaleChainPassTest {
  private static final Position OLD = Position.parse("MariaDB/0-1-100");

  private MySqlTestSupport db;
  private VReplicationStreams streams;
  private LockSet stalePass;
  private LockSet newPass;

  @BeforeEach
  void setUp() throws Exception {
    db = new MySqlTestSupport();
    streams = new VReplicationStreams(db.pools, db.fence, db.schema);
    stalePass = db.lock(100).withEpoch(1_000);
    newPass = db.lock(100).withEpoch(2_000);
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
  }

  private NewStream stream(String workflow) {
    BinlogSource source = new BinlogSource("commerce", "0", TabletType.REPLICA, KeyRange.ofShard("-80"), List.of(),
        BinlogSource.Filter.of(new BinlogSource.Rule("customer", "select * from customer")),
        BinlogSource.OnDdl.IGNORE, false, null, null, null, null);
    return NewStream.stopped(workflow, source, OLD, db.endpoint.dbName(), WorkflowType.MOVE_TABLES,
        WorkflowSubType.NONE);
  }

  @Test
  void aStalePassResumingAfterTheNewPassFrozeTheWorkflowChangesNothing() {
    List<Integer> forward = streams.insert(db.endpoint, List.of(stream("wf")), db.lock(100));
    // The new pass runs the whole chain: stops for cutover, replaces and starts the reverse
    // streams, freezes the forward workflow.
    streams.stop(db.endpoint, forward, "stopped for cutover", newPass);
    streams.replace(db.endpoint, "wf_reverse", List.of(stream("wf_reverse")), newPass);
    streams.start(db.endpoint, "wf_reverse", newPass);
    streams.freeze(db.endpoint, "wf", newPass);

    // The stale pass resumes in waitForCatchup, then createReverseVReplication.
    assertThatThrownBy(() -> streams.stop(db.endpoint, forward, "stopped for cutover", stalePass))
        .isInstanceOf(LockLostException.class).hasMessageContaining("epoch");
    assertThatThrownBy(() -> streams.replace(db.endpoint, "wf_reverse", List.of(stream("wf_reverse")), stalePass))
        .isInstanceOf(LockLostException.class);

    assertThat(streams.read(db.endpoint, "wf")).singleElement().satisfies(s -> assertThat(s.isFrozen()).isTrue());
    assertThat(streams.read(db.endpoint, "wf_reverse")).singleElement()
        .satisfies(s -> assertThat(s.state()).isEqualTo(StreamState.RUNNING));
  }

  @Test
  void theSameEpochAndNewerOnesStillPassAndAStampLessSetIsOlderThanAnyStamp() {
    List<Integer> forward = streams.insert(db.endpoint, List.of(stream("wf")), stalePass);
    streams.stop(db.endpoint, forward, "a", stalePass);
    streams.stop(db.endpoint, forward, "b", newPass);
    streams.stop(db.endpoint, forward, "c", newPass);
    assertThatThrownBy(() -> streams.stop(db.endpoint, forward, "d", db.lock(100)))
        .isInstanceOf(LockLostException.class);
    // A newer token wins whatever its epoch.
    streams.stop(db.endpoint, forward, "e", db.lock(101));
    assertThat(streams.read(db.endpoint, "wf")).singleElement().satisfies(s -> assertThat(s.message()).isEqualTo("e"));
  }

  @Test
  void stoppingOrStartingAFrozenWorkflowNeverClearsFrozen() {
    List<Integer> forward = streams.insert(db.endpoint, List.of(stream("wf")), newPass);
    streams.freeze(db.endpoint, "wf", newPass);

    streams.stop(db.endpoint, forward, "stopped for cutover", newPass);
    streams.stop(db.endpoint, "wf", "stopped for cutover", newPass);
    streams.start(db.endpoint, "wf", newPass);

    assertThat(streams.read(db.endpoint, "wf")).singleElement().satisfies(s -> assertThat(s.isFrozen()).isTrue());
  }
}
