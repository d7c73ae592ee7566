package io.pointsman.engine.primary.tablet;

import static io.pointsman.engine.tablet.VReplicationStatements.sqlString;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.names.Names;
import io.pointsman.engine.mysql.NewStream;
import io.pointsman.engine.mysql.SidecarText;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.primary.FencePort;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.StreamsPort;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.tablet.TabletQueryResult;
import io.pointsman.engine.tablet.VReplicationWorkflow;
import io.pointsman.engine.tablet.WorkflowUpdate;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@link StreamsPort} on the shard primary's vttablet, with the RPCs vtctld uses for each change
 * (docs/real-vitess.md, "Tablet RPCs pointsman uses"): fence first, then the RPC, then the streams
 * read back ({@link Outcomes}). The direct-MySQL counterpart is
 * {@link io.pointsman.engine.mysql.VReplicationStreams}.
 */
public final class TabletStreams implements StreamsPort {
  private final TabletManagerClient client;
  private final TabletPrimaries primaries;
  private final FencePort fence;
  private final Clock clock;

  public TabletStreams(TabletManagerClient client, TabletPrimaries primaries, FencePort fence, Clock clock) {
    this.client = Objects.requireNonNull(client, "client");
    this.primaries = Objects.requireNonNull(primaries, "primaries");
    this.fence = Objects.requireNonNull(fence, "fence");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public List<Stream> read(ShardRef shard, String workflow) {
    Names.workflow(workflow);
    return read(primaries.resolve(shard), workflow);
  }

  @Override
  public int stop(ShardRef shard, String workflow, String message, LockSet locks) {
    Names.workflow(workflow);
    TabletPrimary p = primaries.resolve(shard);
    fence.raise(shard, locks, "stopping workflow " + workflow);
    String msg = message == null ? "" : message;
    return Outcomes.settle("stopping workflow " + workflow + " on " + p,
        () -> (int) client.updateVReplicationWorkflow(p.endpoint(), WorkflowUpdate.state(workflow, StreamState.STOPPED, msg)),
        () -> read(p, workflow).stream().allMatch(s -> s.state() == StreamState.STOPPED && s.message().equals(msg)),
        () -> read(p, workflow).size());
  }

  @Override
  public int stop(ShardRef shard, Collection<Integer> ids, String message, LockSet locks) {
    if (ids.isEmpty()) {
      return 0;
    }
    SortedSet<Integer> sorted = new TreeSet<>(ids);
    TabletPrimary p = primaries.resolve(shard);
    fence.raise(shard, locks, "stopping streams " + sorted);
    String msg = message == null ? "" : message;
    // vttablet's VReplicationExec takes an update by id or by workflow only, so one statement per id
    for (int id : sorted) {
      Outcomes.settle("stopping stream " + id + " on " + p,
          () -> client.vreplicationExec(p.endpoint(), "update _vt.vreplication set state = "
              + sqlString(StreamState.STOPPED.column()) + ", message = " + sqlString(msg) + " where id = " + id
              + " and db_name = " + sqlString(p.dbName())).rowsAffected(),
          () -> StreamRows.byId(client, p, id).map(r -> r.state() == StreamState.STOPPED && r.message().equals(msg))
              .orElse(true),
          () -> 1L);
    }
    return (int) sorted.stream().filter(id -> StreamRows.byId(client, p, id).isPresent()).count();
  }

  /**
   * As vtctld starts the reverse streams: one VReplicationExec {@code update} of state and message
   * (UpdateVReplicationWorkflow refuses a FROZEN workflow, and only this clears the message).
   */
  @Override
  public int start(ShardRef shard, String workflow, LockSet locks) {
    Names.workflow(workflow);
    TabletPrimary p = primaries.resolve(shard);
    fence.raise(shard, locks, "starting workflow " + workflow);
    Outcomes.settle("starting workflow " + workflow + " on " + p,
        () -> client.vreplicationExec(p.endpoint(), "update _vt.vreplication set state = "
            + sqlString(StreamState.RUNNING.column()) + ", message = '' where db_name = " + sqlString(p.dbName())
            + " and workflow = " + sqlString(workflow)).rowsAffected(),
        // not the message: a started stream's controller at once writes "Picked source tablet: ..." there
        () -> read(p, workflow).stream().allMatch(s -> s.state() != StreamState.STOPPED && !s.isFrozen()),
        () -> 0L);
    return read(p, workflow).size();
  }

  /**
   * As vtctld freezes the target streams after a switch, once they are stopped: the message alone,
   * through VReplicationExec. On a running stream the tablet restarts the stream's controller, which
   * overwrites the message at once, so the read-back fails then.
   */
  @Override
  public int freeze(ShardRef shard, String workflow, LockSet locks) {
    Names.workflow(workflow);
    TabletPrimary p = primaries.resolve(shard);
    fence.raise(shard, locks, "freezing workflow " + workflow);
    Outcomes.settle("freezing workflow " + workflow + " on " + p,
        () -> client.vreplicationExec(p.endpoint(), "update _vt.vreplication set message = "
            + sqlString(Stream.FROZEN) + " where db_name = " + sqlString(p.dbName())
            + " and workflow = " + sqlString(workflow)).rowsAffected(),
        () -> read(p, workflow).stream().allMatch(Stream::isFrozen),
        () -> 0L);
    return read(p, workflow).size();
  }

  /**
   * One VReplicationExec {@code insert} per stream, as vtctld creates reverse streams (it needs the
   * start position, which CreateVReplicationWorkflow cannot take). An insert whose outcome is unknown
   * counts as done when a new stream of the same workflow, source and position is there.
   */
  @Override
  public List<Integer> insert(ShardRef shard, List<NewStream> streams, LockSet locks) {
    TabletPrimary p = primaries.resolve(shard);
    for (NewStream s : streams) {
      if (!s.dbName().equals(p.dbName())) {
        throw PointsmanException.invalidArgument("a stream of " + s.workflow() + " writing to " + s.dbName()
            + " cannot run on " + p + ", which serves " + p.dbName());
      }
    }
    String workflows = streams.stream().map(NewStream::workflow).distinct().collect(Collectors.joining(","));
    fence.raise(shard, locks, "creating streams of " + workflows);
    List<Integer> ids = new ArrayList<>();
    for (NewStream s : streams) {
      Set<Integer> before = read(p, s.workflow()).stream().map(Stream::id).collect(Collectors.toSet());
      long id = Outcomes.settle("creating a stream of " + s.workflow() + " on " + p,
          () -> client.vreplicationExec(p.endpoint(), insertStatement(s)).insertId(),
          () -> newStream(p, s, before) != null,
          () -> (long) newStream(p, s, before).id());
      ids.add(Math.toIntExact(id));
    }
    return ids;
  }

  @Override
  public int delete(ShardRef shard, String workflow, LockSet locks) {
    Names.workflow(workflow);
    TabletPrimary p = primaries.resolve(shard);
    fence.raise(shard, locks, "deleting workflow " + workflow);
    int existing = read(p, workflow).size();
    Outcomes.settle("deleting workflow " + workflow + " on " + p,
        () -> client.deleteVReplicationWorkflow(p.endpoint(), workflow),
        () -> read(p, workflow).isEmpty(),
        () -> 0L);
    return existing;
  }

  private Stream newStream(TabletPrimary p, NewStream wanted, Set<Integer> before) {
    Set<Integer> seen = new HashSet<>(before);
    return read(p, wanted.workflow()).stream()
        .filter(s -> !seen.contains(s.id()) && s.source().equals(wanted.source()) && s.pos().equals(wanted.pos()))
        .findFirst().orElse(null);
  }

  private String insertStatement(NewStream s) {
    // max_tps and max_replication_lag as Vitess writes them when throttling is off
    return "insert into _vt.vreplication (workflow, source, pos, stop_pos, max_tps, max_replication_lag, cell, "
        + "tablet_types, time_updated, transaction_timestamp, state, message, db_name, workflow_type, "
        + "workflow_sub_type, options) values (" + sqlString(s.workflow()) + ", "
        + sqlString(SidecarText.encodeSource(s.source())) + ", " + sqlString(s.pos().encode()) + ", "
        + (s.stopPos().isZero() ? "null" : sqlString(s.stopPos().encode())) + ", 9223372036854775807, "
        + "9223372036854775807, " + sqlString(s.cell()) + ", " + sqlString(s.tabletTypes()) + ", "
        + clock.instant().getEpochSecond() + ", 0, " + sqlString(s.state().column()) + ", '', "
        + sqlString(s.dbName()) + ", " + s.workflowType().code() + ", " + s.workflowSubType().code() + ", "
        + sqlString(s.options()) + ")";
  }

  private List<Stream> read(TabletPrimary p, String workflow) {
    return client.readVReplicationWorkflow(p.endpoint(), workflow).map(wf -> streams(client, p, wf)).orElse(List.of());
  }

  /**
   * The engine's {@link Stream} from ReadVReplicationWorkflow. The response has no heartbeat time
   * pointsman reads (EPOCH here) and no copy state, which is read from {@code _vt.copy_state}.
   */
  private static List<Stream> streams(TabletManagerClient client, TabletPrimary p, VReplicationWorkflow wf) {
    Set<Integer> copying = StreamRows.copying(client, p, wf.streams().stream().map(VReplicationWorkflow.Stream::id).toList());
    String tabletTypes = wf.tabletTypes().stream().map(TabletType::name).map(n -> n.toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(","));
    List<Stream> out = new ArrayList<>();
    for (VReplicationWorkflow.Stream s : wf.streams()) {
      out.add(new Stream(s.id(), wf.workflow(), s.source(), Position.parse(s.position()), Position.parse(s.stopPosition()),
          s.state(), s.message(), wf.dbName(), wf.cells(), tabletTypes, orEpoch(s.timeUpdated()),
          orEpoch(s.transactionTimestamp()), Instant.EPOCH, s.rowsCopied(), wf.type(), wf.subType(), "{}",
          copying.contains(s.id())));
    }
    return out;
  }

  private static Instant orEpoch(Instant t) {
    return t == null ? Instant.EPOCH : t;
  }
}
