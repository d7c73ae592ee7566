package io.pointsman.engine.mysql;

import io.pointsman.api.gtid.Position;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Locale;

/**
 * One row of {@code _vt.vreplication}: a stream of a VReplication workflow on a target primary.
 *
 * @param id the stream id (Vitess's uid)
 * @param workflow the workflow name
 * @param source what the stream reads
 * @param pos the position the stream has applied up to; ZERO before it started
 * @param stopPos where the stream stops by itself; ZERO for never
 * @param state the stored state
 * @param message the last message (an error, "FROZEN", "for cutover", ...); "" for none
 * @param dbName the database the stream writes to
 * @param cell cells to stream from (comma-separated); "" for the default
 * @param tabletTypes tablet types to stream from (comma-separated); "" for the default
 * @param timeUpdated when the stream last updated its row
 * @param transactionTimestamp commit time at the source of the last transaction applied; EPOCH for none
 * @param timeHeartbeat when the stream last saw a heartbeat from its source; EPOCH for none
 * @param rowsCopied rows copied so far in the copy phase
 * @param workflowType the workflow type
 * @param workflowSubType the workflow sub-type
 * @param options the workflow options (JSON)
 * @param copyPending whether {@code copy_state} still has rows for this stream (copy not finished)
 */
public record Stream(
    int id,
    String workflow,
    BinlogSource source,
    Position pos,
    Position stopPos,
    StreamState state,
    String message,
    String dbName,
    String cell,
    String tabletTypes,
    Instant timeUpdated,
    Instant transactionTimestamp,
    Instant timeHeartbeat,
    long rowsCopied,
    WorkflowType workflowType,
    WorkflowSubType workflowSubType,
    String options,
    boolean copyPending) {

  /** The message that marks a workflow whose writes were switched (Vitess's {@code Frozen}). */
  public static final String FROZEN = "FROZEN";
  /** The lag of a stream still copying: switching is not allowed then, so it counts as endless. */
  public static final Duration UNBOUNDED_LAG = Duration.ofSeconds(Long.MAX_VALUE);
  private static final Duration LAGGING_AFTER = Duration.ofSeconds(10);

  /**
   * The highest {@link #transactionLag} of the streams, as {@code MaxVReplicationTransactionLag}
   * that Vitess's canSwitch compares with {@code --max-replication-lag-allowed}; zero for none.
   */
  public static Duration maxTransactionLag(Collection<Stream> streams, Instant now) {
    return streams.stream().map(s -> s.transactionLag(now)).max(Duration::compareTo).orElse(Duration.ZERO);
  }

  /** The same stream reading with another source. */
  public Stream withSource(BinlogSource newSource) {
    return new Stream(id, workflow, newSource, pos, stopPos, state, message, dbName, cell, tabletTypes, timeUpdated,
        transactionTimestamp, timeHeartbeat, rowsCopied, workflowType, workflowSubType, options, copyPending);
  }

  public boolean isFrozen() {
    return FROZEN.equals(message);
  }

  /**
   * The state as Vitess reports it: Error when the message mentions an error, Copying while
   * copy_state has rows, Lagging when a running stream has not updated its row for over 10 s.
   * (Vitess compares the current second-of-minute there, a bug; this compares instants.)
   */
  public StreamState effectiveState(Instant now) {
    if (message != null && message.toLowerCase(Locale.ROOT).contains("error")) {
      return StreamState.ERROR;
    }
    if (state == StreamState.RUNNING && copyPending) {
      return StreamState.COPYING;
    }
    if (state == StreamState.RUNNING && Duration.between(timeUpdated, now).compareTo(LAGGING_AFTER) > 0) {
      return StreamState.LAGGING;
    }
    return state;
  }

  /**
   * Replication lag as Vitess's {@code MaxVReplicationTransactionLag} computes it: now minus the
   * source commit time of the last transaction applied. When no transaction came since the copy,
   * or the last heartbeat is newer than the last transaction (the source is idle, so the stream is
   * caught up to that heartbeat), the heartbeat time is used instead; a stream that never saw a
   * heartbeat falls back to its row's update time (Vitess would report decades). A copying stream
   * has {@link #UNBOUNDED_LAG}. Never negative.
   */
  public Duration transactionLag(Instant now) {
    if (state == StreamState.COPYING || (state == StreamState.RUNNING && copyPending)) {
      return UNBOUNDED_LAG;
    }
    Instant last = transactionTimestamp;
    if (last.equals(Instant.EPOCH) || timeHeartbeat.isAfter(last)) {
      last = timeHeartbeat;
    }
    if (last.equals(Instant.EPOCH)) {
      last = timeUpdated;
    }
    Duration lag = Duration.between(last, now);
    return lag.isNegative() ? Duration.ZERO : lag;
  }
}
