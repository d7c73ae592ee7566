package io.pointsman.engine.tablet;

import binlogdata.Binlogdata;
import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.BinlogSource;
import io.vitess.proto.Query.StreamHealthRequest;
import io.vitess.proto.Query.StreamHealthResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import queryservice.QueryGrpc;
import tabletmanagerdata.Tabletmanagerdata.CreateVReplicationWorkflowRequest;
import tabletmanagerdata.Tabletmanagerdata.DeleteVReplicationWorkflowRequest;
import tabletmanagerdata.Tabletmanagerdata.ExecuteFetchAsDbaRequest;
import tabletmanagerdata.Tabletmanagerdata.ExecuteMultiFetchAsDbaRequest;
import tabletmanagerdata.Tabletmanagerdata.GetMaxValueForSequencesRequest;
import tabletmanagerdata.Tabletmanagerdata.PrimaryPositionRequest;
import tabletmanagerdata.Tabletmanagerdata.ReadVReplicationWorkflowRequest;
import tabletmanagerdata.Tabletmanagerdata.ReadVReplicationWorkflowResponse;
import tabletmanagerdata.Tabletmanagerdata.RefreshStateRequest;
import tabletmanagerdata.Tabletmanagerdata.ResetSequencesRequest;
import tabletmanagerdata.Tabletmanagerdata.UpdateSequenceTablesRequest;
import tabletmanagerdata.Tabletmanagerdata.UpdateVReplicationWorkflowRequest;
import tabletmanagerdata.Tabletmanagerdata.VReplicationExecRequest;
import tabletmanagerdata.Tabletmanagerdata.VReplicationWaitForPosRequest;
import tabletmanagerdata.Tabletmanagerdata.ValidateVReplicationPermissionsRequest;
import tabletmanagerdata.Tabletmanagerdata.ValidateVReplicationPermissionsResponse;
import tabletmanagerservice.TabletManagerGrpc;
import tabletmanagerservice.TabletManagerGrpc.TabletManagerBlockingStub;

/**
 * The tablet-manager RPCs pointsman makes to vttablets, the ones vtctld makes for a traffic switch
 * (docs/real-vitess.md, "Tablet RPCs pointsman uses"). One gRPC channel per tablet address, opened
 * on first use and kept until {@link #close()}; every call has a deadline; every failure becomes a
 * {@link PointsmanException} through {@link TabletRpcErrors} naming the RPC and the tablet.
 *
 * <p>This class only speaks the protocol. Whether a change may be made (the caller's locks still
 * fenced in) and whether it took effect (read back) is decided by its callers.
 *
 * <p>Plaintext gRPC unless {@link TabletRpcOptions#tls()} says otherwise ({@link TabletTls}): TLS
 * verified against a CA, with a client certificate for tablets started with {@code --grpc-ca}.
 */
public final class TabletManagerClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TabletManagerClient.class);

  /** vttablet's "not given" markers (Vitess's simulated NULLs): keep the streams' cells and tablet types. */
  private static final String UNSET_CELLS = "NULL";
  private static final int UNSET_TABLET_TYPES = -1;

  private final TabletRpcOptions options;
  private final TabletChannels channelFactory;
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private volatile boolean closed;

  public TabletManagerClient(TabletRpcOptions options) {
    this.options = Objects.requireNonNull(options, "options");
    // reads the TLS files now: a wrong one fails here, naming its setting
    this.channelFactory = new TabletChannels(options);
  }

  /** The tablet's current binlog position (its GTID set with the flavor prefix, e.g. {@code MariaDB/0-100-5}). */
  public String primaryPosition(TabletEndpoint tablet) {
    return call("PrimaryPosition", tablet, false, options.callTimeout(),
        stub -> stub.primaryPosition(PrimaryPositionRequest.getDefaultInstance())).getPosition();
  }

  /** The workflow's streams on this tablet, or empty if the tablet has none of it. */
  public Optional<VReplicationWorkflow> readVReplicationWorkflow(TabletEndpoint tablet, String workflow) {
    requireWorkflow(workflow);
    ReadVReplicationWorkflowResponse r = call("ReadVReplicationWorkflow", tablet, false, options.callTimeout(),
        stub -> stub.readVReplicationWorkflow(ReadVReplicationWorkflowRequest.newBuilder().setWorkflow(workflow).build()));
    // vttablet answers an empty message when no row matches
    if (r.getStreamsCount() == 0) {
      return Optional.empty();
    }
    return Optional.of(TabletProtos.workflow(r));
  }

  /**
   * Changes the state and/or message of all the workflow's streams on this tablet; returns how many
   * streams were changed (0 when the tablet has none of the workflow). vttablet refuses to start a
   * FROZEN workflow (FAILED_PRECONDITION), and sets Copying instead of Running on streams whose copy
   * is not done.
   */
  public long updateVReplicationWorkflow(TabletEndpoint tablet, WorkflowUpdate update) {
    UpdateVReplicationWorkflowRequest.Builder b = UpdateVReplicationWorkflowRequest.newBuilder()
        .setWorkflow(update.workflow())
        .addCells(UNSET_CELLS)
        .addTabletTypesValue(UNSET_TABLET_TYPES);
    update.state().ifPresent(s -> b.setState(TabletProtos.state(s)));
    update.message().ifPresent(b::setMessage);
    return call("UpdateVReplicationWorkflow", tablet, true, options.callTimeout(),
        stub -> stub.updateVReplicationWorkflow(b.build())).getResult().getRowsAffected();
  }

  /** One statement on the VReplication tables, through the tablet's VReplication engine ({@link VReplicationStatements}). */
  public TabletQueryResult vreplicationExec(TabletEndpoint tablet, String query) {
    if (query == null || query.isBlank()) {
      throw PointsmanException.invalidArgument("VReplicationExec statement is empty");
    }
    return TabletProtos.result(call("VReplicationExec", tablet, !isRead(query), options.callTimeout(),
        stub -> stub.vReplicationExec(VReplicationExecRequest.newBuilder().setQuery(query).build())).getResult());
  }

  /**
   * Waits until stream {@code streamId} on this tablet has applied {@code position}, for at most
   * {@code timeout} (DEADLINE_EXCEEDED after that). The tablet fails at once (gRPC UNKNOWN, so
   * INTERNAL here) if the stream does not exist or is Stopped short of the position: callers read
   * the stream back to tell why.
   */
  public void vreplicationWaitForPos(TabletEndpoint tablet, int streamId, String position, Duration timeout) {
    TabletRpcOptions.positive("timeout", timeout);
    if (position == null || position.isBlank()) {
      throw PointsmanException.invalidArgument("no position to wait for on stream " + streamId + " of tablet " + tablet.alias());
    }
    call("VReplicationWaitForPos", tablet, false, timeout,
        stub -> stub.vReplicationWaitForPos(VReplicationWaitForPosRequest.newBuilder()
            .setId(streamId).setPosition(position).build()));
  }

  /** Makes the tablet re-read its tablet and shard records (denied tables, query service) from the topology. */
  public void refreshState(TabletEndpoint tablet) {
    call("RefreshState", tablet, true, options.callTimeout(), stub -> stub.refreshState(RefreshStateRequest.getDefaultInstance()));
  }

  /** Deletes all the workflow's streams (and their copy state) on this tablet; returns how many rows went. */
  public long deleteVReplicationWorkflow(TabletEndpoint tablet, String workflow) {
    requireWorkflow(workflow);
    return call("DeleteVReplicationWorkflow", tablet, true, options.callTimeout(),
        stub -> stub.deleteVReplicationWorkflow(DeleteVReplicationWorkflowRequest.newBuilder().setWorkflow(workflow).build()))
        .getResult().getRowsAffected();
  }

  /** Creates a workflow on this tablet, one stream per source (see {@link NewWorkflow} for what it is not for). */
  public long createVReplicationWorkflow(TabletEndpoint tablet, NewWorkflow w) {
    CreateVReplicationWorkflowRequest.Builder b = CreateVReplicationWorkflowRequest.newBuilder()
        .setWorkflow(w.workflow())
        .addAllCells(w.cells())
        .setWorkflowTypeValue(w.type().code())
        .setWorkflowSubTypeValue(w.subType().code())
        .setAutoStart(w.autoStart())
        .setStopAfterCopy(w.stopAfterCopy())
        .setOptions(w.options());
    for (BinlogSource s : w.sources()) {
      b.addBinlogSource(TabletProtos.source(s));
    }
    for (TabletType t : w.tabletTypes()) {
      b.addTabletTypes(TabletProtos.tabletType(t));
    }
    return call("CreateVReplicationWorkflow", tablet, true, options.callTimeout(),
        stub -> stub.createVReplicationWorkflow(b.build())).getResult().getRowsAffected();
  }

  /** One statement as the tablet's DBA user (pointsman's fence table, table drops). */
  public TabletQueryResult executeFetchAsDba(TabletEndpoint tablet, DbaQuery q) {
    ExecuteFetchAsDbaRequest req = ExecuteFetchAsDbaRequest.newBuilder()
        .setQuery(ByteString.copyFromUtf8(q.sql()))
        .setDbName(q.database())
        .setMaxRows(q.maxRows())
        .setDisableBinlogs(q.disableBinlogs())
        .setReloadSchema(q.reloadSchema())
        .setDisableForeignKeyChecks(q.disableForeignKeyChecks())
        .build();
    return TabletProtos.result(call("ExecuteFetchAsDba", tablet, !isRead(q.sql()), options.callTimeout(),
        stub -> stub.executeFetchAsDba(req)).getResult());
  }

  /**
   * Several statements, separated by {@code ;}, as the tablet's DBA user, in order on one connection
   * (ExecuteMultiFetchAsDba): one call and one connection where ExecuteFetchAsDba takes one of each per
   * statement, since vttablet opens a new DBA connection for every call. The results come in the
   * statements' order; a statement that fails ends the call, those before it having run.
   */
  public List<TabletQueryResult> executeMultiFetchAsDba(TabletEndpoint tablet, DbaQuery q) {
    ExecuteMultiFetchAsDbaRequest req = ExecuteMultiFetchAsDbaRequest.newBuilder()
        .setSql(ByteString.copyFromUtf8(q.sql()))
        .setDbName(q.database())
        .setMaxRows(q.maxRows())
        .setDisableBinlogs(q.disableBinlogs())
        .setReloadSchema(q.reloadSchema())
        .setDisableForeignKeyChecks(q.disableForeignKeyChecks())
        .build();
    return call("ExecuteMultiFetchAsDba", tablet, !isRead(q.sql()), options.callTimeout(),
        stub -> stub.executeMultiFetchAsDba(req)).getResultsList().stream().map(TabletProtos::result).toList();
  }

  /**
   * The highest value of each using column on this tablet, by backing sequence table. The database,
   * table and column names must come backtick-quoted, as the tablet requires.
   */
  public Map<String, Long> getMaxValueForSequences(TabletEndpoint tablet,
      List<GetMaxValueForSequencesRequest.SequenceMetadata> sequences) {
    return call("GetMaxValueForSequences", tablet, false, options.callTimeout(),
        stub -> stub.getMaxValueForSequences(GetMaxValueForSequencesRequest.newBuilder().addAllSequences(sequences)
            .build())).getMaxValuesBySequenceTableMap();
  }

  /**
   * Raises each sequence table's next id to one above its given max value (never lowers it; the
   * tablet creates a missing sequence table), then has the tablet forget the values it cached.
   */
  public void updateSequenceTables(TabletEndpoint tablet, List<UpdateSequenceTablesRequest.SequenceMetadata> sequences) {
    call("UpdateSequenceTables", tablet, true, options.callTimeout(),
        stub -> stub.updateSequenceTables(UpdateSequenceTablesRequest.newBuilder().addAllSequences(sequences).build()));
  }

  /** Has the tablet forget the sequence values it cached for these tables (those that are sequences). */
  public void resetSequences(TabletEndpoint tablet, List<String> tables) {
    call("ResetSequences", tablet, true, options.callTimeout(),
        stub -> stub.resetSequences(ResetSequencesRequest.newBuilder().addAllTables(tables).build()));
  }

  /**
   * Whether the tablet's filtered-replication user may manage VReplication's sidecar tables, as the
   * tablet tests it; empty from a tablet that predates the RPC (Vitess 20 and older).
   */
  public Optional<ValidateVReplicationPermissionsResponse> validateVReplicationPermissions(TabletEndpoint tablet) {
    try {
      return Optional.of(call("ValidateVReplicationPermissions", tablet, false, options.callTimeout(),
          stub -> stub.validateVReplicationPermissions(ValidateVReplicationPermissionsRequest.getDefaultInstance())));
    } catch (PointsmanException e) {
      if (e.getCause() instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * The tablet's first health report, from its query service (on the same port as the tablet
   * manager): what vtgate and Vitess's tablet picker judge a tablet by.
   */
  public StreamHealthResponse health(TabletEndpoint tablet) {
    // the stream runs until cancelled: its context is cancelled once the first report is in
    Context.CancellableContext call = Context.current().withCancellation();
    try {
      return call.call(() -> {
        Iterator<StreamHealthResponse> reports = QueryGrpc.newBlockingStub(channel(tablet))
            .withDeadlineAfter(options.callTimeout().toNanos(), TimeUnit.NANOSECONDS)
            .streamHealth(StreamHealthRequest.getDefaultInstance());
        if (!reports.hasNext()) {
          throw PointsmanException.unavailable("tablet " + tablet.alias() + " at " + tablet.address()
              + " ended its health stream without a report", null);
        }
        return reports.next();
      });
    } catch (StatusRuntimeException e) {
      throw TabletRpcErrors.translate("StreamHealth", tablet, false, e, options.tls());
    } catch (PointsmanException e) {
      throw e;
    } catch (Exception e) {
      throw PointsmanException.internal("StreamHealth on tablet " + tablet.alias() + " failed", e);
    } finally {
      call.cancel(null);
    }
  }

  private <T> T call(String rpc, TabletEndpoint tablet, boolean mutating, Duration deadline,
      Function<TabletManagerBlockingStub, T> body) {
    Objects.requireNonNull(tablet, "tablet");
    TabletManagerBlockingStub stub = TabletManagerGrpc.newBlockingStub(channel(tablet))
        .withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
    try {
      return body.apply(stub);
    } catch (StatusRuntimeException e) {
      throw TabletRpcErrors.translate(rpc, tablet, mutating, e, options.tls());
    }
  }

  private ManagedChannel channel(TabletEndpoint tablet) {
    if (closed) {
      throw PointsmanException.failedPrecondition("tablet manager client is closed");
    }
    return channels.computeIfAbsent(tablet.address(), address -> channelFactory.open(tablet));
  }

  /** Whether a statement only reads: a timed-out read has no unknown outcome. */
  private static boolean isRead(String sql) {
    String s = sql.stripLeading().toLowerCase(java.util.Locale.ROOT);
    return s.startsWith("select") || s.startsWith("show");
  }

  private static void requireWorkflow(String workflow) {
    if (workflow == null || workflow.isBlank()) {
      throw PointsmanException.invalidArgument("no workflow name given");
    }
  }

  @Override
  public void close() {
    closed = true;
    List<ManagedChannel> open = new ArrayList<>(channels.values());
    channels.clear();
    for (ManagedChannel c : open) {
      c.shutdown();
    }
    for (ManagedChannel c : open) {
      try {
        if (!c.awaitTermination(5, TimeUnit.SECONDS)) {
          log.warn("gRPC channel {} did not terminate in 5 s; forcing it", c);
          c.shutdownNow();
        }
      } catch (InterruptedException e) {
        c.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
  }
}
