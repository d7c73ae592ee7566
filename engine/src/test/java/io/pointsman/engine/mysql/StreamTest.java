package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.gtid.Position;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamTest {
  private static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");

  static Stream stream(StreamState state, String message, long updatedAgo, long txAgo, long heartbeatAgo,
      boolean copyPending) {
    return new Stream(1, "wf", BinlogSource.of("commerce", "0", BinlogSource.Filter.of()), Position.ZERO,
        Position.ZERO, state, message, "vt_customer", "", "", ago(updatedAgo), ago(txAgo), ago(heartbeatAgo), 0,
        WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, "{}", copyPending);
  }

  private static Instant ago(long seconds) {
    return seconds < 0 ? Instant.EPOCH : NOW.minusSeconds(seconds);
  }

  @Test
  void lagIsTimeSinceTheLastTransaction() {
    assertThat(stream(StreamState.RUNNING, "", 1, 7, 20, false).transactionLag(NOW)).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void aNewerHeartbeatMeansCaughtUpToTheHeartbeat() {
    assertThat(stream(StreamState.RUNNING, "", 1, 300, 2, false).transactionLag(NOW)).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void noTransactionSinceTheCopyUsesTheHeartbeatThenTheUpdateTime() {
    assertThat(stream(StreamState.RUNNING, "", 1, -1, 4, false).transactionLag(NOW)).isEqualTo(Duration.ofSeconds(4));
    assertThat(stream(StreamState.STOPPED, "", 9, -1, -1, false).transactionLag(NOW)).isEqualTo(Duration.ofSeconds(9));
  }

  @Test
  void aCopyingStreamHasUnboundedLag() {
    assertThat(stream(StreamState.COPYING, "", 0, 0, 0, false).transactionLag(NOW)).isEqualTo(Stream.UNBOUNDED_LAG);
    assertThat(stream(StreamState.RUNNING, "", 0, 0, 0, true).transactionLag(NOW)).isEqualTo(Stream.UNBOUNDED_LAG);
  }

  @Test
  void theWorkflowsLagIsItsSlowestStreams() {
    assertThat(Stream.maxTransactionLag(List.of(stream(StreamState.RUNNING, "", 1, 7, 20, false),
        stream(StreamState.RUNNING, "", 1, 12, 20, false)), NOW)).isEqualTo(Duration.ofSeconds(12));
    assertThat(Stream.maxTransactionLag(List.of(), NOW)).isEqualTo(Duration.ZERO);
  }

  @Test
  void lagIsNeverNegative() {
    assertThat(stream(StreamState.RUNNING, "", 0, -5, -1, false).transactionLag(NOW.minusSeconds(60)))
        .isEqualTo(Duration.ZERO);
  }

  @Test
  void effectiveStateFollowsVitess() {
    assertThat(stream(StreamState.RUNNING, "vstream ended with an ERROR", 0, 0, 0, false).effectiveState(NOW))
        .isEqualTo(StreamState.ERROR);
    assertThat(stream(StreamState.RUNNING, "", 0, 0, 0, true).effectiveState(NOW)).isEqualTo(StreamState.COPYING);
    assertThat(stream(StreamState.RUNNING, "", 11, 0, 0, false).effectiveState(NOW)).isEqualTo(StreamState.LAGGING);
    assertThat(stream(StreamState.RUNNING, "", 3, 0, 0, false).effectiveState(NOW)).isEqualTo(StreamState.RUNNING);
    assertThat(stream(StreamState.STOPPED, "for cutover", 60, 0, 0, false).effectiveState(NOW))
        .isEqualTo(StreamState.STOPPED);
  }

  @Test
  void frozenIsTheMessage() {
    assertThat(stream(StreamState.STOPPED, "FROZEN", 0, 0, 0, false).isFrozen()).isTrue();
    assertThat(stream(StreamState.STOPPED, "frozen", 0, 0, 0, false).isFrozen()).isFalse();
  }

  @Test
  void messagesAreCutAtVitessLimitInBytesOnACharacterBoundary() {
    assertThat(VReplicationStreams.truncate("x".repeat(2000))).hasSize(950);
    String multiByte = "é".repeat(600); // 1200 bytes
    String cut = VReplicationStreams.truncate(multiByte);
    assertThat(cut.getBytes(StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(950);
    assertThat(cut).hasSize(475);
    assertThat(VReplicationStreams.truncate(null)).isEmpty();
  }
}
