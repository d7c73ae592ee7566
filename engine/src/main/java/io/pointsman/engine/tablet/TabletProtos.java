package io.pointsman.engine.tablet;

import binlogdata.Binlogdata;
import com.google.protobuf.ByteString;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.SidecarText;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowSubType;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.topo.model.KeyRange;
import io.vitess.proto.Query;
import io.vitess.proto.Topodata;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import tabletmanagerdata.Tabletmanagerdata.ReadVReplicationWorkflowResponse;

/**
 * Conversions between Vitess's protobuf messages and the engine's records. Only {@link
 * #source(BinlogSource)} is public: Show prints the binlog source as vtctld's protobuf JSON. Enums go
 * by number: Vitess keeps numbers stable, and the engine's enums carry the same numbers.
 */
public final class TabletProtos {
  private static final HexFormat HEX = HexFormat.of();

  private TabletProtos() {}

  static TabletQueryResult result(Query.QueryResult r) {
    List<String> columns = new ArrayList<>(r.getFieldsCount());
    for (Query.Field f : r.getFieldsList()) {
      columns.add(f.getName());
    }
    List<List<String>> rows = new ArrayList<>(r.getRowsCount());
    for (Query.Row row : r.getRowsList()) {
      rows.add(values(row));
    }
    return new TabletQueryResult(columns, rows, r.getRowsAffected(), r.getInsertId());
  }

  /** A row's values: {@code lengths} says where each ends in {@code values}; -1 is NULL. */
  private static List<String> values(Query.Row row) {
    List<String> out = new ArrayList<>(row.getLengthsCount());
    ByteString bytes = row.getValues();
    int offset = 0;
    for (long length : row.getLengthsList()) {
      if (length < 0) {
        out.add(null);
        continue;
      }
      int end = Math.addExact(offset, Math.toIntExact(length));
      if (end > bytes.size()) {
        throw PointsmanException.internal("row value ends at byte " + end + " of " + bytes.size(), null);
      }
      out.add(bytes.substring(offset, end).toString(StandardCharsets.UTF_8));
      offset = end;
    }
    return out;
  }

  static VReplicationWorkflow workflow(ReadVReplicationWorkflowResponse r) {
    List<TabletType> types = new ArrayList<>();
    for (Topodata.TabletType t : r.getTabletTypesList()) {
      types.add(tabletType(t));
    }
    List<VReplicationWorkflow.Stream> streams = new ArrayList<>();
    for (ReadVReplicationWorkflowResponse.Stream s : r.getStreamsList()) {
      streams.add(new VReplicationWorkflow.Stream(
          s.getId(),
          source(s.getBls()),
          s.getPos(),
          s.getStopPos(),
          state(s.getStateValue()),
          s.getMessage(),
          s.getRowsCopied(),
          s.hasTimeUpdated() ? instant(s.getTimeUpdated()) : null,
          s.hasTransactionTimestamp() ? instant(s.getTransactionTimestamp()) : null,
          s.hasTimeHeartbeat() ? instant(s.getTimeHeartbeat()) : null));
    }
    return new VReplicationWorkflow(r.getWorkflow(), r.getDbName(), r.getCells(), types,
        workflowType(r.getWorkflowTypeValue()), workflowSubType(r.getWorkflowSubTypeValue()), streams);
  }

  private static Instant instant(vttime.Vttime.Time t) {
    return t.getSeconds() == 0 && t.getNanoseconds() == 0 ? null : Instant.ofEpochSecond(t.getSeconds(), t.getNanoseconds());
  }

  static StreamState state(int number) {
    switch (number) {
      case 1: return StreamState.INIT;
      case 2: return StreamState.STOPPED;
      case 3: return StreamState.COPYING;
      case 4: return StreamState.RUNNING;
      case 5: return StreamState.ERROR;
      case 6: return StreamState.LAGGING;
      default: throw PointsmanException.internal("tablet reported stream state number " + number, null);
    }
  }

  static Binlogdata.VReplicationWorkflowState state(StreamState s) {
    switch (s) {
      case INIT: return Binlogdata.VReplicationWorkflowState.Init;
      case STOPPED: return Binlogdata.VReplicationWorkflowState.Stopped;
      case COPYING: return Binlogdata.VReplicationWorkflowState.Copying;
      case RUNNING: return Binlogdata.VReplicationWorkflowState.Running;
      case ERROR: return Binlogdata.VReplicationWorkflowState.Error;
      case LAGGING: return Binlogdata.VReplicationWorkflowState.Lagging;
      default: throw new IllegalArgumentException(s.name());
    }
  }

  static WorkflowType workflowType(int code) {
    for (WorkflowType t : WorkflowType.values()) {
      if (t.code() == code) {
        return t;
      }
    }
    throw PointsmanException.internal("tablet reported workflow type number " + code, null);
  }

  static WorkflowSubType workflowSubType(int code) {
    for (WorkflowSubType t : WorkflowSubType.values()) {
      if (t.code() == code) {
        return t;
      }
    }
    throw PointsmanException.internal("tablet reported workflow sub-type number " + code, null);
  }

  static TabletType tabletType(Topodata.TabletType t) {
    return TabletType.parse(t.name());
  }

  static Topodata.TabletType tabletType(TabletType t) {
    return Topodata.TabletType.forNumber(t.ordinal());
  }

  public static BinlogSource source(Binlogdata.BinlogSource b) {
    List<BinlogSource.Rule> rules = new ArrayList<>();
    for (Binlogdata.Rule r : b.getFilter().getRulesList()) {
      rules.add(SidecarText.fromProto(r));
    }
    KeyRange keyRange = b.hasKeyRange()
        ? new KeyRange(HEX.formatHex(b.getKeyRange().getStart().toByteArray()), HEX.formatHex(b.getKeyRange().getEnd().toByteArray()))
        : null;
    // UNKNOWN (unset) is null, as in BinlogSource.of: the stream's tablet_types decide
    TabletType type = b.getTabletTypeValue() == 0 ? null : tabletType(b.getTabletType());
    return new BinlogSource(b.getKeyspace(), b.getShard(), type, keyRange, b.getTablesList(),
        new BinlogSource.Filter(rules), BinlogSource.OnDdl.values()[b.getOnDdlValue()], b.getStopAfterCopy(),
        emptyToNull(b.getExternalMysql()), emptyToNull(b.getExternalCluster()),
        emptyToNull(b.getSourceTimeZone()), emptyToNull(b.getTargetTimeZone()));
  }

  public static Binlogdata.BinlogSource source(BinlogSource s) {
    Binlogdata.BinlogSource.Builder b = Binlogdata.BinlogSource.newBuilder()
        .setKeyspace(s.keyspace())
        .setShard(s.shard())
        .addAllTables(s.tables())
        .setOnDdlValue(s.onDdl().ordinal())
        .setStopAfterCopy(s.stopAfterCopy());
    if (s.tabletType() != null) {
      b.setTabletType(tabletType(s.tabletType()));
    }
    if (s.keyRange() != null) {
      b.setKeyRange(Topodata.KeyRange.newBuilder()
          .setStart(ByteString.copyFrom(HEX.parseHex(s.keyRange().start())))
          .setEnd(ByteString.copyFrom(HEX.parseHex(s.keyRange().end()))));
    }
    Binlogdata.Filter.Builder filter = Binlogdata.Filter.newBuilder();
    for (BinlogSource.Rule r : s.filter().rules()) {
      filter.addRules(SidecarText.toProto(r));
    }
    b.setFilter(filter);
    setIfPresent(s.externalMysql(), b::setExternalMysql);
    setIfPresent(s.externalCluster(), b::setExternalCluster);
    setIfPresent(s.sourceTimeZone(), b::setSourceTimeZone);
    setIfPresent(s.targetTimeZone(), b::setTargetTimeZone);
    return b.build();
  }

  private static void setIfPresent(String v, java.util.function.Consumer<String> setter) {
    if (v != null && !v.isEmpty()) {
      setter.accept(v);
    }
  }

  private static String emptyToNull(String s) {
    return s.isEmpty() ? null : s;
  }
}
