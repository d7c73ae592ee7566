package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.engine.concurrent.PollSchedule;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StreamWaiterTest {
  private static final PollSchedule POLL = PollSchedule.upTo(Duration.ofMillis(20));

  private MySqlTestSupport db;
  private VReplicationStreams streams;
  private StreamWaiter waiter;
  private int id;
  private final ExecutorService executor = Executors.newCachedThreadPool();

  @BeforeEach
  void setUp() throws Exception {
    db = new MySqlTestSupport();
    streams = new VReplicationStreams(db.pools, db.fence, db.schema);
    waiter = new StreamWaiter(streams);
    id = streams.insert(db.endpoint, List.of(NewStream.stopped("wf", BinlogSource.of("commerce", "0",
        BinlogSource.Filter.of()), Position.parse("MariaDB/0-1-1"), db.endpoint.dbName(), WorkflowType.MOVE_TABLES,
        WorkflowSubType.NONE)), db.lock(1)).get(0);
    streams.start(db.endpoint, "wf", db.lock(1));
  }

  @AfterEach
  void tearDown() throws Exception {
    executor.shutdownNow();
    executor.awaitTermination(10, TimeUnit.SECONDS);
    db.close();
  }

  /** What a stream applier does: advance its row's position, one transaction at a time. */
  private void advance(long from, long to) throws Exception {
    try (Connection c = MySqlTestSupport.client(); PreparedStatement ps = c.prepareStatement(
        "UPDATE " + db.endpoint.sidecarDb() + ".vreplication SET pos = ?, time_updated = UNIX_TIMESTAMP() WHERE id = ?")) {
      for (long seq = from; seq <= to; seq++) {
        ps.setString(1, "MariaDB/0-1-" + seq + ",1-5-" + seq / 2);
        ps.setInt(2, id);
        ps.executeUpdate();
      }
    }
  }

  private void setState(String state, String message) throws Exception {
    MySqlTestSupport.exec("UPDATE " + db.endpoint.sidecarDb() + ".vreplication SET state = '" + state
        + "', message = '" + message + "' WHERE id = " + id);
  }

  /**
   * Returns once the stream gets there, seen on the schedule's short first pauses: a wait that
   * slept its cap between reads (half a minute here) would notice a stream arriving a moment after
   * the wait began only half a minute later. In the write window a catch-up mostly ends within
   * milliseconds.
   */
  @Test
  void returnsOnceARunningStreamReachesThePositionReadingOnTheSchedulesShortFirstPauses() throws Exception {
    PollSchedule slowCap = new PollSchedule(Duration.ofMillis(1), Duration.ofSeconds(30));
    Position wanted = Position.parse("MariaDB/0-1-300,1-5-100");
    // The wait's first read comes at once; the stream reaches `wanted` only some 300 updates later.
    Future<Position> wait = executor.submit(
        () -> waiter.waitForPosition(db.endpoint, id, wanted, Duration.ofSeconds(60), slowCap));

    advance(2, 400);

    // a third of the cap: a pause at the cap after the first read would still be sleeping
    Position reached = wait.get(10, TimeUnit.SECONDS);
    assertThat(reached.atLeast(wanted)).isTrue();
  }

  @Test
  void aPositionAlreadyReachedReturnsAtOnceEvenIfTheStreamStoppedThere() throws Exception {
    advance(2, 50);
    setState("Stopped", "Stopped after copy.");

    assertThat(waiter.waitForPosition(db.endpoint, id, Position.parse("MariaDB/0-1-50"), Duration.ZERO, POLL))
        .isEqualTo(Position.parse("MariaDB/0-1-50,1-5-25"));
  }

  @Test
  void timesOutNamingTheStreamTheWantedAndTheReachedPositions() throws Exception {
    advance(2, 10);

    assertThatThrownBy(() -> waiter.waitForPosition(db.endpoint, id, Position.parse("MariaDB/0-1-99"),
        Duration.ofMillis(300), POLL))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED))
        .hasMessageContaining("stream " + id + " of workflow wf")
        .hasMessageContaining("did not reach MariaDB/0-1-99 within PT0.3S")
        .hasMessageContaining("it is Running at MariaDB/0-1-10,1-5-5");
  }

  @Test
  void failsEarlyWithTheStreamsMessageWhenItStops() throws Exception {
    advance(2, 10);
    Future<Position> wait = executor.submit(() -> waiter.waitForPosition(db.endpoint, id,
        Position.parse("MariaDB/0-1-99"), Duration.ofSeconds(60), POLL));

    setState("Stopped", "vstreamer: table customer was dropped");

    assertThatThrownBy(() -> wait.get(10, TimeUnit.SECONDS)).cause()
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageContaining("is Stopped at MariaDB/0-1-10,1-5-5 before reaching MariaDB/0-1-99")
        .hasMessageContaining("message: vstreamer: table customer was dropped");
  }

  @Test
  void failsEarlyOnAStreamInError() throws Exception {
    setState("Error", "duplicate key");

    assertThatThrownBy(() -> waiter.waitForPosition(db.endpoint, id, Position.parse("MariaDB/0-1-99"),
        Duration.ofSeconds(60), POLL))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageContaining("is Error");
  }

  @Test
  void aMissingStreamIsNotFound() {
    assertThatThrownBy(() -> waiter.waitForPosition(db.endpoint, id + 1000, Position.parse("MariaDB/0-1-1"),
        Duration.ofSeconds(1), POLL))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
  }

  @Test
  void aWantedPositionOfAnotherFlavorIsAnInvalidArgument() {
    assertThatThrownBy(() -> waiter.waitForPosition(db.endpoint, id,
        Position.parse("MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1"), Duration.ofSeconds(1), POLL))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
  }
}
