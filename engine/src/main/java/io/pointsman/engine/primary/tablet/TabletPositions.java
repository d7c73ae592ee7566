package io.pointsman.engine.primary.tablet;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.primary.PositionsPort;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.tablet.TabletManagerClient;
import java.time.Duration;
import java.util.Objects;

/**
 * {@link PositionsPort} on vttablets: PrimaryPosition, and VReplicationWaitForPos with the caller's
 * deadline. vttablet fails a wait at once (gRPC UNKNOWN) for a missing or stopped stream; the stream
 * is then read to give the caller the same errors as {@link io.pointsman.engine.mysql.StreamWaiter}.
 */
public final class TabletPositions implements PositionsPort {
  private final TabletManagerClient client;
  private final TabletPrimaries primaries;

  public TabletPositions(TabletManagerClient client, TabletPrimaries primaries) {
    this.client = Objects.requireNonNull(client, "client");
    this.primaries = Objects.requireNonNull(primaries, "primaries");
  }

  @Override
  public Position current(ShardRef shard) {
    return Position.parse(client.primaryPosition(primaries.resolve(shard).endpoint()));
  }

  @Override
  public Position waitFor(ShardRef shard, int streamId, Position wanted, Duration timeout) {
    Objects.requireNonNull(wanted, "wanted");
    if (wanted.isZero()) {
      throw PointsmanException.invalidArgument("no position to wait for on stream " + streamId + " of " + shard);
    }
    TabletPrimary p = primaries.resolve(shard);
    try {
      client.vreplicationWaitForPos(p.endpoint(), streamId, wanted.encode(), timeout);
    } catch (PointsmanException e) {
      if (e.code() == ErrorCode.DEADLINE_EXCEEDED || e.code() == ErrorCode.UNAVAILABLE) {
        throw e;
      }
      StreamRows.Row row = StreamRows.byId(client, p, streamId).orElseThrow(() -> PointsmanException.notFound(
          "stream " + streamId + " does not exist on " + p));
      if (row.state() == StreamState.STOPPED || row.state() == StreamState.ERROR) {
        throw PointsmanException.failedPrecondition("stream " + streamId + " of workflow " + row.workflow() + " on " + p
            + " is " + row.state().column() + " at " + row.pos() + " before reaching " + wanted
            + (row.message().isEmpty() ? "" : "; message: " + row.message()));
      }
      throw e;
    }
    return StreamRows.byId(client, p, streamId).map(StreamRows.Row::pos).orElseThrow(() -> PointsmanException.notFound(
        "stream " + streamId + " vanished on " + p + " after reaching " + wanted));
  }
}
