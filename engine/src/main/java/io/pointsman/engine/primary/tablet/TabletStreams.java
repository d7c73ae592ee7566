package io.pointsman.engine.primary.tablet;

import static io.pointsman.engine.tablet.VReplicationStatements.sqlString;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.SavedStream;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.names.Names;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.NewStream;
import io.pointsman.engine.mysql.SidecarText;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.StreamsPort;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.tablet.TabletQueryResult;
import io.pointsman.engine.tablet.VReplicationWorkflow;
import io.pointsman.engine.tablet.WorkflowUpdate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * {@link StreamsPort} on the shard primary's vttablet, with the RPCs vtctld uses for each change
 * (docs/real-vitess.md, "Tablet RPCs pointsman uses"): fence first, then the RPC, then the streams
 * read back ({@link Outcomes}). The direct-MySQL counterpart is
 * {@link io.pointsman.engine.mysql.VReplicationStreams}.
 */
public final class TabletStreams extends TabletPort implements StreamsPort {
  TabletStreams(Shared shared) {
    super(shared);
  }

  @Override
  public List<Stream> read(ShardRef shard, String workflow) {
    Names.workflow(workflow);
    return read(primaries.resolve(shard), workflow);
  }

  @Override
  public List<Stream> readAll(ShardRef shard) {
    TabletPrimary p = primaries.resolve(shard);
    TabletQueryResult names = client.vreplicationExec(p.endpoint(),
        "select distinct workflow from _vt.vreplication where db_name = " + sqlString(p.dbName()));
    List<Stream> out = new ArrayList<>();
    for (List<String> row : names.rows()) {
      out.addAll(read(p, row.get(0)));
    }
    out.sort(java.util.Comparator.comparingInt(Stream::id));
    return out;
  }

  @Override
  public List<SavedStream> save(ShardRef shard, String workflow) {
    Names.workflow(workflow);
    TabletPrimary p = primaries.resolve(shard);
    TabletQueryResult r = client.vreplicationExec(p.endpoint(), "select " + SAVED_COLUMNS
        + " from _vt.vreplication where db_name = " + sqlString(p.dbName()) + " and workflow = " + sqlString(workflow));
    List<SavedStream> out = new ArrayList<>();
    for (int i = 0; i < r.rows().size(); i++) {
      out.add(new SavedStream(shard.shard(), Long.parseLong(r.value(i, "id")), r.value(i, "workflow"),
          r.value(i, "source"), r.value(i, "pos"), r.value(i, "stop_pos"), number(r.value(i, "max_tps")),
          number(r.value(i, "max_replication_lag")), r.value(i, "cell"), r.value(i, "tablet_types"),
          number(r.value(i, "time_updated")), number(r.value(i, "transaction_timestamp")), r.value(i, "state"),
          r.value(i, "message"), r.value(i, "db_name"), (int) number(r.value(i, "workflow_type")),
          (int) number(r.value(i, "workflow_sub_type")), r.value(i, "options")));
    }
    out.sort(java.util.Comparator.comparingLong(SavedStream::id));
    return out;
  }

  /**
   * Deletes the workflow's streams, then inserts the saved ones through VReplicationExec, so that
   * vttablet starts or leaves them as their saved state says. Unlike the direct-MySQL restore the
   * streams get new ids (vttablet assigns them); nothing pointsman keeps refers to a reverse stream's id.
   */
  @Override
  public void restore(ShardRef shard, String workflow, List<SavedStream> saved, LockSet locks) {
    Names.workflow(workflow);
    TabletPrimary p = primaries.resolve(shard);
    for (SavedStream s : saved) {
      if (!s.workflow().equals(workflow) || !s.dbName().equals(p.dbName())) {
        throw PointsmanException.invalidArgument("saved stream " + s.id() + " of " + s.workflow() + " in "
            + s.dbName() + " does not belong to " + workflow + " on " + p);
      }
    }
    if (sameStreams(read(p, workflow), saved)) {
      return;
    }
    delete(shard, workflow, locks);
    fence.raise(p, shard, locks, "restoring the streams of workflow " + workflow);
    for (SavedStream s : saved) {
      Set<Integer> before = read(p, workflow).stream().map(Stream::id).collect(Collectors.toSet());
      Outcomes.settle("restoring stream " + s.id() + " of " + workflow + " on " + p,
          () -> client.vreplicationExec(p.endpoint(), insertStatement(s)).insertId(),
          () -> read(p, workflow).stream().anyMatch(st -> !before.contains(st.id())
              && st.pos().encode().equals(s.pos() == null ? "" : s.pos())),
          () -> 0L);
    }
  }

  /** Whether the streams there are the saved ones already (a rerun of a restore that finished). */
  private static boolean sameStreams(List<Stream> now, List<SavedStream> saved) {
    if (now.size() != saved.size()) {
      return false;
    }
    List<String> a = now.stream().map(st -> SidecarText.encodeSource(st.source()) + "@" + st.pos().encode()).sorted().toList();
    List<String> b = saved.stream().map(st -> SidecarText.encodeSource(SidecarText.decodeSource("saved stream " + st.id(),
        st.source())) + "@" + Position.parse(st.pos() == null ? "" : st.pos()).encode()).sorted().toList();
    return a.equals(b);
  }

  /**
   * As vtctld replaces reverse streams on a rerun: the workflow's streams go, then the new ones are
   * inserted. Two steps, not one transaction as on direct MySQL; a retry after a failure between
   * them finds no streams of the workflow and inserts them all. It runs inside the write window
   * (createReverseVReplication), one call after another on each source primary, so it makes no
   * call its checks do not need: no count before the delete, whose read-back (none left) is what
   * the inserts start from, and one read-back after the inserts.
   */
  @Override
  public List<Integer> replace(ShardRef shard, String workflow, List<NewStream> streams, LockSet locks) {
    Names.workflow(workflow);
    for (NewStream s : streams) {
      if (!s.workflow().equals(workflow)) {
        throw PointsmanException.invalidArgument("a stream of " + s.workflow() + " cannot replace the streams of " + workflow);
      }
    }
    TabletPrimary p = fence.raiseOn(shard, locks, "deleting workflow " + workflow);
    deleteOn(p, workflow);
    // the primary the delete was fenced on takes the inserts too, without resolving it again
    Map<String, Set<Integer>> known = new HashMap<>();
    known.put(workflow, new HashSet<>());
    return insertOn(p, fence.ask(shard, locks, "creating streams of " + workflow), streams, known);
  }

  @Override
  public int stop(ShardRef shard, String workflow, String message, LockSet locks) {
    Names.workflow(workflow);
    TabletPrimary p = fence.raiseOn(shard, locks, "stopping workflow " + workflow);
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
    TabletPrimary p = fence.raiseOn(shard, locks, "stopping streams " + sorted);
    String msg = message == null ? "" : message;
    // vttablet's VReplicationExec takes an update by id or by workflow only, so one statement per id;
    // each is read back once, which also counts the streams there (this runs in the write window)
    Set<Integer> present = new HashSet<>();
    for (int id : sorted) {
      Outcomes.settle("stopping stream " + id + " on " + p,
          () -> client.vreplicationExec(p.endpoint(), "update _vt.vreplication set state = "
              + sqlString(StreamState.STOPPED.column()) + ", message = " + sqlString(msg) + " where id = " + id
              + " and db_name = " + sqlString(p.dbName())).rowsAffected(),
          () -> {
            Optional<StreamRows.Row> row = StreamRows.byId(client, p, id);
            row.ifPresent(r -> present.add(id));
            return row.map(r -> r.state() == StreamState.STOPPED && r.message().equals(msg)).orElse(true);
          },
          () -> 1L);
    }
    return present.size();
  }

  /**
   * One VReplicationExec {@code update} of the stream's stop position (and state Running, message
   * cleared, so that a stream an earlier pass stopped short runs on); vttablet restarts the stream's
   * controller with it, and the stream stops itself on reaching the position. vtctld waits with
   * VReplicationWaitForPos and then stops the streams instead.
   */
  @Override
  public void stopAt(ShardRef shard, int id, Position pos, LockSet locks) {
    // etcd is asked about the locks while the primary is resolved and the stream read
    TabletFence.Asked asked = fence.ask(shard, locks, "setting the stop position of stream " + id);
    TabletPrimary p = primaries.resolve(shard);
    StreamRows.Row row = StreamRows.byId(client, p, id).orElseThrow(() -> PointsmanException.notFound(
        "stream " + id + " does not exist on " + p));
    if (Stream.FROZEN.equals(row.message())) {
      throw PointsmanException.failedPrecondition("stream " + id + " of workflow " + row.workflow() + " on " + p
          + " is FROZEN: its writes were switched");
    }
    if (row.state() == StreamState.STOPPED && row.pos().atLeast(pos)) {
      return; // already there
    }
    fence.raise(p, asked);
    Outcomes.settle("setting the stop position of stream " + id + " on " + p,
        () -> client.vreplicationExec(p.endpoint(), "update _vt.vreplication set state = "
            + sqlString(StreamState.RUNNING.column()) + ", message = '', stop_pos = " + sqlString(pos.encode())
            + " where id = " + id + " and db_name = " + sqlString(p.dbName())).rowsAffected(),
        () -> pos.encode().equals(stopPos(p, id)),
        () -> 1L);
  }

  private String stopPos(TabletPrimary p, int id) {
    TabletQueryResult r = client.vreplicationExec(p.endpoint(), "select stop_pos from _vt.vreplication where id = " + id
        + " and db_name = " + sqlString(p.dbName()));
    return r.rows().isEmpty() ? null : r.value(0, "stop_pos");
  }

  /**
   * As vtctld starts the reverse streams: one VReplicationExec {@code update} of state and message
   * (UpdateVReplicationWorkflow refuses a FROZEN workflow, and only this clears the message).
   */
  @Override
  public int start(ShardRef shard, String workflow, LockSet locks) {
    return updateWorkflow(shard, workflow, locks, "starting",
        "state = " + sqlString(StreamState.RUNNING.column()) + ", message = '', stop_pos = null",
        // not the message: a started stream's controller at once writes "Picked source tablet: ..." there
        streams -> streams.stream().allMatch(s -> s.state() != StreamState.STOPPED && !s.isFrozen()));
  }

  /**
   * As vtctld freezes the target streams after a switch, once they are stopped: the message alone,
   * through VReplicationExec. On a running stream the tablet restarts the stream's controller, which
   * overwrites the message at once, so the read-back fails then.
   */
  @Override
  public int freeze(ShardRef shard, String workflow, LockSet locks) {
    return updateWorkflow(shard, workflow, locks, "freezing", "message = " + sqlString(Stream.FROZEN),
        streams -> streams.stream().allMatch(Stream::isFrozen));
  }

  /**
   * One fenced VReplicationExec {@code update} that sets {@code assignments} on every stream of the
   * workflow, done when its streams read back {@code done}; how many streams it has.
   */
  private int updateWorkflow(ShardRef shard, String workflow, LockSet locks, String doing, String assignments,
      Predicate<List<Stream>> done) {
    Names.workflow(workflow);
    TabletPrimary p = fence.raiseOn(shard, locks, doing + " workflow " + workflow);
    Outcomes.settle(doing + " workflow " + workflow + " on " + p,
        () -> client.vreplicationExec(p.endpoint(), "update _vt.vreplication set " + assignments
            + " where db_name = " + sqlString(p.dbName()) + " and workflow = " + sqlString(workflow)).rowsAffected(),
        () -> done.test(read(p, workflow)),
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
    String workflows = streams.stream().map(NewStream::workflow).distinct().collect(Collectors.joining(","));
    // etcd is asked about the locks while the primary is resolved and its streams read
    TabletFence.Asked asked = fence.ask(shard, locks, "creating streams of " + workflows);
    TabletPrimary p = primaries.resolve(shard);
    Map<String, Set<Integer>> known = new HashMap<>();
    for (NewStream s : streams) {
      known.computeIfAbsent(s.workflow(), wf -> new HashSet<>(sourcesById(p, wf).keySet()));
    }
    return insertOn(p, asked, streams, known);
  }

  /**
   * Inserts the streams through VReplicationExec after the fence, each once: an insert whose outcome
   * is unknown is settled by reading back whether a stream of its source and position appeared
   * beside the ids known before it; the inserts the tablet confirmed are all read back once at the
   * end. {@code known}: each workflow's stream ids on {@code p} before the inserts (added to here).
   */
  private List<Integer> insertOn(TabletPrimary p, TabletFence.Asked asked, List<NewStream> streams,
      Map<String, Set<Integer>> known) {
    for (NewStream s : streams) {
      if (!s.dbName().equals(p.dbName())) {
        throw PointsmanException.invalidArgument("a stream of " + s.workflow() + " writing to " + s.dbName()
            + " cannot run on " + p + ", which serves " + p.dbName());
      }
    }
    fence.raise(p, asked);
    List<Integer> inserted = new ArrayList<>();
    for (NewStream s : streams) {
      Set<Integer> before = known.get(s.workflow());
      long id = Outcomes.settleUnknown("creating a stream of " + s.workflow() + " on " + p,
          () -> client.vreplicationExec(p.endpoint(), insertStatement(s)).insertId(),
          () -> newStream(p, s, before) != null,
          () -> (long) newStream(p, s, before).id());
      before.add(Math.toIntExact(id));
      inserted.add(Math.toIntExact(id));
    }
    // A tablet that said yes without inserting is caught here, for all the streams at once.
    Map<String, Map<Integer, BinlogSource>> after = new HashMap<>();
    for (int i = 0; i < streams.size(); i++) {
      NewStream s = streams.get(i);
      BinlogSource found = after.computeIfAbsent(s.workflow(), wf -> sourcesById(p, wf)).get(inserted.get(i));
      if (!s.source().equals(found)) {
        throw PointsmanException.internal("creating a stream of " + s.workflow() + " on " + p + ": the tablet"
            + " confirmed stream " + inserted.get(i) + ", but reading back does not show it", null);
      }
    }
    return inserted;
  }

  @Override
  public int delete(ShardRef shard, String workflow, LockSet locks) {
    Names.workflow(workflow);
    TabletPrimary p = fence.raiseOn(shard, locks, "deleting workflow " + workflow);
    int existing = sourcesById(p, workflow).size();
    deleteOn(p, workflow);
    return existing;
  }

  /** DeleteVReplicationWorkflow, fenced by the caller, settled by reading back that none of its streams is left. */
  private void deleteOn(TabletPrimary p, String workflow) {
    Outcomes.settle("deleting workflow " + workflow + " on " + p,
        () -> client.deleteVReplicationWorkflow(p.endpoint(), workflow),
        () -> sourcesById(p, workflow).isEmpty(),
        () -> 0L);
  }

  /** The columns a {@link SavedStream} keeps, as {@link io.pointsman.engine.mysql.SavedStreams} reads them. */
  private static final String SAVED_COLUMNS = "id, workflow, source, pos, stop_pos, max_tps, max_replication_lag, cell,"
      + " tablet_types, time_updated, transaction_timestamp, state, message, db_name, workflow_type,"
      + " workflow_sub_type, options";

  private String insertStatement(SavedStream s) {
    return "insert into _vt.vreplication (workflow, source, pos, stop_pos, max_tps, max_replication_lag, cell, "
        + "tablet_types, time_updated, transaction_timestamp, state, message, db_name, workflow_type, "
        + "workflow_sub_type, options) values (" + sqlString(s.workflow()) + ", " + sqlString(s.source()) + ", "
        + sqlString(s.pos() == null ? "" : s.pos()) + ", " + (s.stopPos() == null ? "null" : sqlString(s.stopPos()))
        + ", " + s.maxTps() + ", " + s.maxReplicationLag() + ", " + sqlString(nullToEmpty(s.cell())) + ", "
        + sqlString(nullToEmpty(s.tabletTypes())) + ", " + clock.instant().getEpochSecond() + ", "
        + s.transactionTimestamp() + ", " + sqlString(s.state()) + ", " + sqlString(nullToEmpty(s.message())) + ", "
        + sqlString(s.dbName()) + ", " + s.workflowType() + ", " + s.workflowSubType() + ", "
        + sqlString(s.options() == null || s.options().isEmpty() ? "{}" : s.options()) + ")";
  }

  private static long number(String column) {
    return column == null || column.isEmpty() ? 0 : Long.parseLong(column);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }

  private Stream newStream(TabletPrimary p, NewStream wanted, Set<Integer> before) {
    Set<Integer> seen = new HashSet<>(before);
    return read(p, wanted.workflow()).stream()
        .filter(s -> !seen.contains(s.id()) && s.source().equals(wanted.source()) && s.pos().equals(wanted.pos()))
        .findFirst().orElse(null);
  }

  /**
   * The workflow's streams by id, with where each reads from: ReadVReplicationWorkflow alone, without
   * the copy state that {@link #read(TabletPrimary, String)} asks for in a second call.
   */
  private Map<Integer, BinlogSource> sourcesById(TabletPrimary p, String workflow) {
    Map<Integer, BinlogSource> out = new HashMap<>();
    client.readVReplicationWorkflow(p.endpoint(), workflow)
        .ifPresent(wf -> wf.streams().forEach(st -> out.put(st.id(), st.source())));
    return out;
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
   * The engine's {@link Stream} from ReadVReplicationWorkflow. The response has no copy state,
   * which is read from {@code _vt.copy_state}, and no options (the workflow's, "{}" here).
   */
  private static List<Stream> streams(TabletManagerClient client, TabletPrimary p, VReplicationWorkflow wf) {
    Set<Integer> copying = StreamRows.copying(client, p, wf.streams().stream().map(VReplicationWorkflow.Stream::id).toList());
    String tabletTypes = wf.tabletTypes().stream().map(TabletType::name).map(n -> n.toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(","));
    List<Stream> out = new ArrayList<>();
    for (VReplicationWorkflow.Stream s : wf.streams()) {
      out.add(new Stream(s.id(), wf.workflow(), s.source(), Position.parse(s.position()), Position.parse(s.stopPosition()),
          s.state(), s.message(), wf.dbName(), wf.cells(), tabletTypes, orEpoch(s.timeUpdated()),
          orEpoch(s.transactionTimestamp()), orEpoch(s.timeHeartbeat()), s.rowsCopied(), wf.type(), wf.subType(), "{}",
          copying.contains(s.id())));
    }
    return out;
  }

  private static Instant orEpoch(Instant t) {
    return t == null ? Instant.EPOCH : t;
  }
}
