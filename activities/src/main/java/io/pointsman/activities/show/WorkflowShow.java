package io.pointsman.activities.show;

import binlogdata.Binlogdata;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamRef;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.names.Names;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.switching.MigrationReader;
import io.pointsman.engine.switching.TopologySwitcher;
import io.pointsman.engine.tablet.TabletProtos;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.TabletControl;
import io.vitess.proto.Topodata;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import vtctldata.Vtctldata;
import vttime.Vttime;

/**
 * vtctld's GetWorkflows and WorkflowStatus for one workflow, built from the topology and the target
 * primaries' streams, as the messages vtctldclient prints for {@code show} and {@code status}.
 * Read-only.
 */
public final class WorkflowShow {
  private final TopologyStore store;
  private final SidecarReads reads;
  private final Clock clock;

  public WorkflowShow(TopologyStore store, SidecarReads reads, Clock clock) {
    this.store = store;
    this.reads = reads;
    this.clock = clock;
  }

  /** vtctldclient {@code show}: a GetWorkflowsResponse with the one workflow. */
  public Vtctldata.GetWorkflowsResponse show(String targetKeyspace, String workflow, boolean includeLogs) {
    Scan scan = scan(targetKeyspace, workflow);
    Instant now = clock.instant();
    Vtctldata.Workflow.Builder wf = Vtctldata.Workflow.newBuilder().setName(workflow);
    Set<String> sourceShards = new TreeSet<>();
    String sourceKeyspace = "";
    long maxLag = 0;
    long maxTxLag = 0;
    Stream any = null;
    for (ShardStreams ss : scan.shards()) {
      Vtctldata.Workflow.ShardStream.Builder shardStream = Vtctldata.Workflow.ShardStream.newBuilder()
          .setIsPrimaryServing(ss.record().isPrimaryServing());
      ss.record().tabletControls().forEach(tc -> shardStream.addTabletControls(tabletControl(tc)));
      List<Integer> ids = ss.streams().stream().map(Stream::id).toList();
      Map<Integer, List<SidecarReads.CopyStateRow>> copies = new TreeMap<>();
      reads.copyStates(ss.shard(), ids).forEach(c -> copies.computeIfAbsent(c.streamId(), k -> new ArrayList<>()).add(c));
      Map<Integer, List<SidecarReads.LogRow>> logs = new TreeMap<>();
      String logError = "";
      if (includeLogs) {
        try {
          reads.logs(ss.shard(), ids).forEach(l -> logs.computeIfAbsent(l.streamId(), k -> new ArrayList<>()).add(l));
        } catch (RuntimeException e) {
          // as vtctld: a log that cannot be read is reported on each stream, the workflow is still shown
          logError = e.getMessage() == null ? e.toString() : e.getMessage();
        }
      }
      for (Stream s : ss.streams()) {
        any = s;
        sourceKeyspace = s.source().keyspace();
        sourceShards.add(s.source().shard());
        Vtctldata.Workflow.Stream.Builder b = Vtctldata.Workflow.Stream.newBuilder()
            .setId(s.id())
            .setShard(ss.shard().shard())
            .setTablet(alias(ss.record().primaryAlias()))
            .setBinlogSource(TabletProtos.source(s.source()))
            .setPosition(position(s))
            .setStopPosition(s.stopPos().isZero() ? "" : s.stopPos().encode())
            .setState(vitessState(s, copies.containsKey(s.id()), now))
            .setDbName(s.dbName())
            .setTransactionTimestamp(time(s.transactionTimestamp()))
            .setTimeUpdated(time(s.timeUpdated()))
            .setMessage(s.message() == null ? "" : s.message())
            .setLogFetchError(logError)
            .addAllTags(List.of(""))
            .setRowsCopied(s.rowsCopied())
            .setThrottlerStatus(Vtctldata.Workflow.Stream.ThrottlerStatus.newBuilder()
                .setTimeThrottled(Vttime.Time.getDefaultInstance()))
            .addAllCells(split(s.cell()));
        for (String t : s.tabletTypes().split(",")) {
          if (!t.isBlank()) {
            b.addTabletTypes(Topodata.TabletType.valueOf(t.trim().toUpperCase(Locale.ROOT)));
          }
        }
        for (SidecarReads.CopyStateRow c : copies.getOrDefault(s.id(), List.of())) {
          b.addCopyStates(Vtctldata.Workflow.Stream.CopyState.newBuilder().setTable(c.table())
              .setLastPk(c.lastPk() == null ? "" : c.lastPk()).setStreamId(c.streamId()));
        }
        for (SidecarReads.LogRow l : logs.getOrDefault(s.id(), List.of())) {
          b.addLogs(Vtctldata.Workflow.Stream.Log.newBuilder().setId(l.id()).setStreamId(l.streamId())
              .setType(l.type()).setState(l.state()).setCreatedAt(time(l.createdAt())).setUpdatedAt(time(l.updatedAt()))
              .setMessage(l.message()).setCount(l.count()));
        }
        shardStream.addStreams(b);
        maxLag = Math.max(maxLag, Duration.between(s.timeUpdated(), now).toSeconds());
        long txLag = copies.containsKey(s.id()) ? Long.MAX_VALUE : s.transactionLag(now).toSeconds();
        maxTxLag = Math.max(maxTxLag, txLag);
      }
      wf.putShardStreams(ss.shard().shard() + "/" + ss.record().primaryAlias(), shardStream.build());
    }
    wf.setSource(Vtctldata.Workflow.ReplicationLocation.newBuilder().setKeyspace(sourceKeyspace)
            .addAllShards(sourceShards))
        .setTarget(Vtctldata.Workflow.ReplicationLocation.newBuilder().setKeyspace(targetKeyspace)
            .addAllShards(scan.shards().stream().map(s -> s.shard().shard()).sorted().toList()))
        .setMaxVReplicationLag(maxLag)
        .setMaxVReplicationTransactionLag(maxTxLag)
        .setWorkflowType(Binlogdata.VReplicationWorkflowType.forNumber(any.workflowType().code()).name())
        .setWorkflowSubType(Binlogdata.VReplicationWorkflowSubType.forNumber(any.workflowSubType().code()).name())
        .setOptions(options(any.options()));
    return Vtctldata.GetWorkflowsResponse.newBuilder().addWorkflows(wf).build();
  }

  /** vtctldclient {@code status}: per-stream state, the copy progress while copying, and the traffic state. */
  public Vtctldata.WorkflowStatusResponse status(String targetKeyspace, String workflow) {
    Scan scan = scan(targetKeyspace, workflow);
    Instant now = clock.instant();
    Vtctldata.WorkflowStatusResponse.Builder r = Vtctldata.WorkflowStatusResponse.newBuilder()
        .setTrafficState(TrafficState.describe(new TopologySwitcher(store).state(scan.info(), List.of())));
    Set<String> copying = new TreeSet<>();
    Map<String, Vtctldata.WorkflowStatusResponse.ShardStreams.Builder> byShard = new TreeMap<>();
    for (ShardStreams ss : scan.shards()) {
      List<Integer> ids = ss.streams().stream().map(Stream::id).toList();
      Set<Integer> streamsCopying = new TreeSet<>();
      for (SidecarReads.CopyStateRow c : reads.copyStates(ss.shard(), ids)) {
        copying.add(c.table());
        streamsCopying.add(c.streamId());
      }
      Vtctldata.WorkflowStatusResponse.ShardStreams.Builder streams =
          byShard.computeIfAbsent(targetKeyspace + "/" + ss.shard().shard(),
              k -> Vtctldata.WorkflowStatusResponse.ShardStreams.newBuilder());
      for (Stream s : ss.streams()) {
        streams.addStreams(Vtctldata.WorkflowStatusResponse.ShardStreamState.newBuilder()
            .setId(s.id())
            .setTablet(alias(ss.record().primaryAlias()))
            .setSourceShard(s.source().keyspace() + "/" + s.source().shard())
            .setPosition(position(s))
            .setStatus(vitessState(s, streamsCopying.contains(s.id()), now))
            .setInfo(info(s, vitessState(s, streamsCopying.contains(s.id()), now), now)));
      }
    }
    byShard.forEach((k, v) -> r.putShardStreams(k, v.build()));
    if (!copying.isEmpty()) {
      copyProgress(scan, copying).forEach(r::putTableCopyState);
    }
    return r.build();
  }

  /** A message as vtctldclient prints it: protobuf JSON with the .proto field names and every field. */
  public static String json(com.google.protobuf.MessageOrBuilder message) {
    return ProtoJson.print(message);
  }

  // ---- reading ----------------------------------------------------------------------------------

  private record ShardStreams(ShardRef shard, Shard record, List<Stream> streams) {}

  private record Scan(MigrationInfo info, List<ShardStreams> shards) {}

  private Scan scan(String targetKeyspace, String workflow) {
    Names.keyspace(targetKeyspace);
    Names.workflow(workflow);
    List<ShardStreams> shards = new ArrayList<>();
    Set<String> sourceKeyspaces = new TreeSet<>();
    Set<String> sourceShards = new TreeSet<>();
    Set<String> tables = new TreeSet<>();
    List<StreamRef> refs = new ArrayList<>();
    boolean frozen = false;
    for (String shard : store.listShards(targetKeyspace)) {
      Shard record = store.getRequired(store.keys().shard(targetKeyspace, shard)).value();
      if (record.primaryAlias() == null) {
        continue; // no primary, no streams: vtctld reads primaries only
      }
      ShardRef ref = new ShardRef(targetKeyspace, shard);
      List<Stream> streams = reads.streams(ref, workflow);
      if (streams.isEmpty()) {
        continue;
      }
      shards.add(new ShardStreams(ref, record, streams));
      for (Stream s : streams) {
        sourceKeyspaces.add(s.source().keyspace());
        sourceShards.add(s.source().shard());
        s.source().filter().rules().stream().filter(r -> !r.isExclude()).forEach(r -> tables.add(r.match()));
        refs.add(new StreamRef(shard, s.id(), s.source().shard()));
        frozen |= s.isFrozen();
      }
    }
    String sourceKeyspace = MigrationReader.onlySourceKeyspace(targetKeyspace, workflow, !shards.isEmpty(),
        sourceKeyspaces);
    List<String> targetShards = shards.stream().map(s -> s.shard().shard()).toList();
    MigrationType type = MigrationType.of(sourceKeyspace, targetKeyspace, sourceShards, targetShards);
    MigrationInfo info = new MigrationInfo(workflow, sourceKeyspace, targetKeyspace, type, List.copyOf(tables),
        List.copyOf(sourceShards), targetShards, refs, 0, frozen);
    return new Scan(info, shards);
  }

  private Map<String, Vtctldata.WorkflowStatusResponse.TableCopyState> copyProgress(Scan scan, Set<String> copying) {
    MigrationInfo info = scan.info();
    Map<String, SidecarReads.TableSize> target = sum(info.targetKeyspace(), info.targetShards(), info.tables());
    Map<String, SidecarReads.TableSize> source = sum(info.sourceKeyspace(), info.sourceShards(), info.tables());
    Map<String, Vtctldata.WorkflowStatusResponse.TableCopyState> out = new LinkedHashMap<>();
    for (Map.Entry<String, SidecarReads.TableSize> e : target.entrySet()) {
      SidecarReads.TableSize t = e.getValue();
      SidecarReads.TableSize s = source.getOrDefault(e.getKey(), new SidecarReads.TableSize(0, 0));
      Vtctldata.TableCopyPhase phase = !copying.contains(e.getKey()) ? Vtctldata.TableCopyPhase.COMPLETE
          : t.rows() > 0 ? Vtctldata.TableCopyPhase.IN_PROGRESS : Vtctldata.TableCopyPhase.NOT_STARTED;
      out.put(e.getKey(), Vtctldata.WorkflowStatusResponse.TableCopyState.newBuilder()
          .setRowsCopied(t.rows()).setRowsTotal(s.rows()).setRowsPercentage(percent(t.rows(), s.rows()))
          .setBytesCopied(t.bytes()).setBytesTotal(s.bytes()).setBytesPercentage(percent(t.bytes(), s.bytes()))
          .setPhase(phase).build());
    }
    return out;
  }

  private Map<String, SidecarReads.TableSize> sum(String keyspace, List<String> shards, Collection<String> tables) {
    Map<String, SidecarReads.TableSize> out = new TreeMap<>();
    for (String shard : shards) {
      reads.tableSizes(new ShardRef(keyspace, shard), tables).forEach((t, size) -> out.merge(t, size,
          (a, b) -> new SidecarReads.TableSize(a.rows() + b.rows(), a.bytes() + b.bytes())));
    }
    return out;
  }

  // ---- Vitess's wording --------------------------------------------------------------------------

  /** The stream state vtctld reports: Error on an error message, Copying while copy_state has rows, Lagging. */
  private static String vitessState(Stream s, boolean copying, Instant now) {
    if (s.message() != null && s.message().toLowerCase(Locale.ROOT).contains("error")) {
      return "Error";
    }
    Stream withCopy = new Stream(s.id(), s.workflow(), s.source(), s.pos(), s.stopPos(), s.state(), s.message(),
        s.dbName(), s.cell(), s.tabletTypes(), s.timeUpdated(), s.transactionTimestamp(), s.timeHeartbeat(),
        s.rowsCopied(), s.workflowType(), s.workflowSubType(), s.options(), s.copyPending() || copying);
    return withCopy.effectiveState(now).column();
  }

  /** WorkflowStatus's info column: the error, or that the stream has not started, or its lag. */
  private static String info(Stream s, String state, Instant now) {
    if (state.equals("Error")) {
      return s.message();
    }
    if (s.pos().isZero()) {
      return "VStream has not started";
    }
    List<String> parts = new ArrayList<>();
    if (Duration.between(s.timeUpdated(), now).toSeconds() > 10) {
      parts.add("VStream may not be running");
    }
    parts.add("VStream Lag: " + Duration.between(s.transactionTimestamp(), now).toSeconds() + "s");
    if (s.transactionTimestamp().getEpochSecond() > 0) {
      parts.add("; Tx time: " + TrafficState.ansic(s.transactionTimestamp()) + ".");
    }
    return String.join("; ", parts);
  }

  /** The applied position as vtctld decodes it for show and status: the GTID set without its flavor prefix. */
  private static String position(Stream s) {
    return s.pos().gtids().map(Object::toString).orElse("");
  }

  private static float percent(long part, long whole) {
    return whole > 0 ? (float) (100.0 * part / whole) : 100.0f;
  }

  private static List<String> split(String csv) {
    return Arrays.stream((csv == null ? "" : csv).split(",", -1)).map(String::trim).toList();
  }

  private static Topodata.TabletAlias alias(TabletAlias a) {
    return Topodata.TabletAlias.newBuilder().setCell(a.cell()).setUid((int) a.uid()).build();
  }

  private static Vttime.Time time(Instant t) {
    return t == null ? Vttime.Time.getDefaultInstance()
        : Vttime.Time.newBuilder().setSeconds(t.getEpochSecond()).setNanoseconds(t.getNano()).build();
  }

  private static Topodata.Shard.TabletControl tabletControl(TabletControl tc) {
    return Topodata.Shard.TabletControl.newBuilder()
        .setTabletType(Topodata.TabletType.valueOf(tc.tabletType().name()))
        .addAllCells(tc.cells())
        .addAllDeniedTables(tc.deniedTables())
        .setFrozen(tc.frozen())
        .build();
  }

  /** The workflow options column, JSON with the .proto field names; unknown fields are ignored as vtctld does. */
  private static Vtctldata.WorkflowOptions options(String json) {
    Vtctldata.WorkflowOptions.Builder b = Vtctldata.WorkflowOptions.newBuilder();
    if (json == null || json.isBlank()) {
      return b.build();
    }
    try {
      JsonFormat.parser().ignoringUnknownFields().merge(json, b);
      return b.build();
    } catch (InvalidProtocolBufferException e) {
      throw PointsmanException.failedPrecondition("the workflow's options column is not valid JSON: " + json);
    }
  }
}
