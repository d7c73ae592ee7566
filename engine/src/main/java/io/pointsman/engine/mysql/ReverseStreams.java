package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.names.Names;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Builds the reverse streams of a workflow as Vitess's {@code createReverseVReplication} does:
 * for each forward stream (on a target shard, reading a source shard) one stream on that source
 * shard's primary, named {@code <wf>_reverse}, reading the target shard from the target's
 * position after catch-up, created Stopped. Pure: the caller writes the result with
 * {@link VReplicationStreams#replace}.
 */
public final class ReverseStreams {
  private static final String REVERSE_SUFFIX = "_reverse";
  private static final String REFERENCE = "reference";
  private static final Pattern VINDEX_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

  private ReverseStreams() {}

  /** {@code wf} → {@code wf_reverse}, and {@code wf_reverse} → {@code wf}, as Vitess names them. */
  public static String reverseName(String workflow) {
    Names.workflow(workflow);
    return workflow.endsWith(REVERSE_SUFFIX) && workflow.length() > REVERSE_SUFFIX.length()
        ? workflow.substring(0, workflow.length() - REVERSE_SUFFIX.length())
        : workflow + REVERSE_SUFFIX;
  }

  /**
   * What one reverse stream is built from.
   *
   * @param targetKeyspace the forward workflow's target keyspace (the reverse stream's source)
   * @param targetShard the target shard the forward stream runs on
   * @param forward the forward stream
   * @param targetPosition the target primary's position after catch-up: where the reverse starts
   * @param sourceKeyspace the forward workflow's source keyspace
   * @param sourceShardKeyRange the key range of the forward stream's source shard
   * @param sourceVSchema the source keyspace's VSchema (sharded or not, primary vindexes)
   * @param sourceDbName the database the reverse stream writes to on the source primary
   * @param targetCell the cell of the target primary
   * @param sourceCell the cell of the source primary
   */
  public record Spec(
      String targetKeyspace,
      String targetShard,
      Stream forward,
      Position targetPosition,
      String sourceKeyspace,
      KeyRange sourceShardKeyRange,
      VSchema sourceVSchema,
      String sourceDbName,
      String targetCell,
      String sourceCell) {
    public Spec {
      Names.keyspace(targetKeyspace);
      Names.shard(targetShard);
      Objects.requireNonNull(forward, "forward");
      Objects.requireNonNull(targetPosition, "targetPosition");
      Names.keyspace(sourceKeyspace);
      Objects.requireNonNull(sourceShardKeyRange, "sourceShardKeyRange");
      Objects.requireNonNull(sourceVSchema, "sourceVSchema");
      Names.database(sourceDbName);
    }
  }

  /** The reverse stream of one forward stream. */
  public static NewStream reverse(Spec spec) {
    Stream fwd = spec.forward();
    BinlogSource bls = fwd.source();
    List<BinlogSource.Rule> rules = new ArrayList<>();
    for (BinlogSource.Rule rule : bls.filter().rules()) {
      rules.add(rule.isExclude() ? rule : new BinlogSource.Rule(rule.match(), reverseFilter(spec, rule)));
    }
    BinlogSource reverse = new BinlogSource(spec.targetKeyspace(), spec.targetShard(), bls.tabletType(), null,
        List.of(), new BinlogSource.Filter(rules), bls.onDdl(), false, null, null,
        bls.targetTimeZone(), bls.sourceTimeZone());

    // Vitess copies the forward workflow's cells and tablet types (and then its options) only
    // when they were given, swapping the target's cell for the source's when only the former is listed.
    String cells = fwd.cell();
    String tabletTypes = fwd.tabletTypes();
    String options = "{}";
    if (!cells.isEmpty() || !tabletTypes.isEmpty()) {
      cells = swapCell(cells, spec.targetCell(), spec.sourceCell());
      options = fwd.options();
    }
    return new NewStream(reverseName(fwd.workflow()), reverse, spec.targetPosition(), Position.ZERO,
        StreamState.STOPPED, spec.sourceDbName(), cells, tabletTypes, fwd.workflowType(), fwd.workflowSubType(),
        options);
  }

  private static String reverseFilter(Spec spec, BinlogSource.Rule rule) {
    boolean sharded = spec.sourceVSchema().sharded();
    String keyRange = spec.sourceShardKeyRange().shardName();
    if (rule.isWildcard()) {
      // All tables of a Reshard: only the rows of the source shard's key range flow back.
      return sharded ? keyRange : "";
    }
    String table = rule.match();
    String select = "select * from " + SqlIdentifiers.table(table);
    if (!sharded) {
      return select;
    }
    VSchemaTable vtable = spec.sourceVSchema().tables().get(table);
    if (vtable == null) {
      throw PointsmanException.internal("table " + table + " not found in the vschema of " + spec.sourceKeyspace(), null);
    }
    if (REFERENCE.equals(vtable.type())) {
      return select; // reference tables have no vindex: every row belongs to every shard
    }
    if (vtable.columnVindexes().isEmpty()) {
      throw PointsmanException.internal("no primary vindex found for the " + table + " table in the "
          + spec.sourceKeyspace() + " keyspace", null);
    }
    ColumnVindex primary = vtable.columnVindexes().get(0);
    String column = primary.columns().isEmpty() ? primary.column() : primary.columns().get(0);
    if (column == null || primary.name() == null || !VINDEX_NAME.matcher(primary.name()).matches()) {
      throw PointsmanException.internal("the primary vindex of table " + table + " in the "
          + spec.sourceKeyspace() + " keyspace has no usable column or name", null);
    }
    return select + " where in_keyrange(" + SqlIdentifiers.table(column) + ", '" + spec.sourceKeyspace() + "."
        + primary.name() + "', '" + keyRange + "')";
  }

  private static String swapCell(String cells, String targetCell, String sourceCell) {
    if (cells.isEmpty() || targetCell == null || sourceCell == null || targetCell.equals(sourceCell)) {
      return cells;
    }
    List<String> list = new ArrayList<>(Arrays.asList(cells.split(",", -1)));
    int at = list.indexOf(targetCell);
    if (at >= 0 && !list.contains(sourceCell)) {
      list.set(at, sourceCell);
    }
    return String.join(",", list);
  }
}
