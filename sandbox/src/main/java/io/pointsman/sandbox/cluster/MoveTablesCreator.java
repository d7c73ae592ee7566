package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.BaseTables;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.switching.SrvVSchemaBuilder;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Does what {@code vtctldclient MoveTables create} leaves behind, reading the primaries from the
 * topology as Vitess does:
 * <ol>
 *   <li>refuses a workflow name a target primary already has, and target tables that hold rows;
 *   <li>creates the moved tables on every serving target shard where they are missing (copied from
 *       the source, without AUTO_INCREMENT when the target is sharded);
 *   <li>routes every form of each moved table ({@code t}, {@code target.t}, {@code source.t}, each
 *       plain, {@code @replica} and {@code @rdonly}) to {@code source.t}, keeping other rules, and
 *       rebuilds every cell's SrvVSchema;
 *   <li>denies writes to the moved tables on the target shards (PRIMARY tablet control);
 *   <li>inserts one stream per target shard and overlapping source shard, each filtering rows into
 *       its shard with {@code in_keyrange} on the table's primary vindex.
 * </ol>
 * Vitess creates the streams Stopped and then starts them; here they are created Init (the stream
 * runner's signal to copy, then replicate) or Stopped without auto-start. Streams are inserted last,
 * so no stream runs before the routing rules and denied tables are in place. Each target primary's
 * streams are inserted in one transaction.
 *
 * <p>Vitess's own code writes eight of the nine rule forms (its line for {@code source.t} repeats
 * {@code target.t}); this writes all nine, {@code source.t -> source.t} being what vtgate does
 * without a rule anyway.
 */
public final class MoveTablesCreator extends WorkflowCreator {
  private static final Logger log = LoggerFactory.getLogger(MoveTablesCreator.class);
  private static final LockSet NO_LOCKS = TopologyStore.UNLOCKED;
  private static final List<String> RULE_SUFFIXES = List.of("", TabletType.REPLICA.ruleSuffix(),
      TabletType.RDONLY.ruleSuffix());
  private static final VSchema EMPTY_VSCHEMA = new VSchema(false, Map.of(), Map.of());
  private static final String REFERENCE = "reference";

  public MoveTablesCreator(TopologyStore store, MysqlCredentials credentials) {
    super(store, credentials);
  }

  /**
   * Creates the workflow.
   *
   * @throws PointsmanException ALREADY_EXISTS if a target primary has streams of this workflow;
   *     FAILED_PRECONDITION if a target table holds rows or is missing from a sharded target's
   *     VSchema; NOT_FOUND if a table is missing on the source; UNAVAILABLE if MySQL fails
   */
  public CreatedWorkflow create(MoveTablesSpec spec) {
    TopoKeys keys = store.keys();
    VSchema targetVSchema = vschema(spec.targetKeyspace());
    VSchema sourceVSchema = vschema(spec.sourceKeyspace());
    if (targetVSchema.sharded()) {
      for (String t : spec.tables()) {
        if (!targetVSchema.tables().containsKey(t)) {
          throw PointsmanException.failedPrecondition(
              "table " + t + " not found in vschema for keyspace " + spec.targetKeyspace());
        }
      }
    }
    Map<String, PrimaryTablet> sources = primaries(spec.sourceKeyspace());
    Map<String, PrimaryTablet> targets = primaries(spec.targetKeyspace());
    try {
      checkNewWorkflow(spec, targets);
      Map<String, String> ddl = sourceDdl(sources.values().iterator().next(), spec.tables());
      checkTargetsEmpty(spec, targets);
      deploySchema(targets, ddl, targetVSchema.sharded());
    } catch (SQLException e) {
      throw PointsmanException.unavailable("MoveTables create of " + spec.workflow() + " failed: " + e.getMessage(), e);
    }

    store.upsert(keys.routingRules(), current -> withRulesToSource(current.orElse(RoutingRules.EMPTY), spec),
        NO_LOCKS);
    new SrvVSchemaBuilder(store).rebuild(List.of(), NO_LOCKS);
    for (String shard : targets.keySet()) {
      store.update(keys.shard(spec.targetKeyspace(), shard),
          s -> s.withDeniedTables(TabletType.PRIMARY, spec.tables(), false), NO_LOCKS);
    }

    boolean differ = primaryVindexesDiffer(spec.tables(), sourceVSchema, targetVSchema);
    StreamState state = spec.autoStart() ? StreamState.INIT : StreamState.STOPPED;
    List<CreatedWorkflow.Stream> created = new ArrayList<>();
    for (PrimaryTablet target : targets.values()) {
      List<PrimaryTablet> from = sources.values().stream()
          .filter(s -> differ || KeyRanges.intersect(s.keyRange(), target.keyRange()))
          .toList();
      boolean keyRangesEqual = from.size() == 1 && from.get(0).keyRange().equals(target.keyRange());
      List<VReplicationTable.NewStream> rows = new ArrayList<>();
      for (PrimaryTablet source : from) {
        // Sorted by table, as Vitess sorts a BinlogSource's rules before storing it.
        List<BinlogSource.Rule> rules = spec.tables().stream().sorted()
            .map(t -> new BinlogSource.Rule(t, filter(spec, targetVSchema, t, target.keyRange(), keyRangesEqual)))
            .toList();
        rows.add(new VReplicationTable.NewStream(spec.workflow(),
            BinlogSource.of(spec.sourceKeyspace(), source.shard(), new BinlogSource.Filter(rules)), state,
            target.dbName(), WorkflowType.MOVE_TABLES, 0, 0));
      }
      created.addAll(StreamInserter.insert(target, credentials, rows));
    }
    log.info("created MoveTables workflow {}.{}: {} -> {} tables {}, {} streams ({})", spec.targetKeyspace(),
        spec.workflow(), spec.sourceKeyspace(), spec.targetKeyspace(), spec.tables(), created.size(), state);
    return new CreatedWorkflow(spec.workflow(), spec.targetKeyspace(), WorkflowType.MOVE_TABLES, created);
  }

  /** The routing rules with all nine forms of each moved table pointing at the source. */
  static RoutingRules withRulesToSource(RoutingRules current, MoveTablesSpec spec) {
    Map<String, List<String>> rules = new LinkedHashMap<>(current.asMap());
    for (String t : spec.tables()) {
      List<String> toSource = List.of(spec.sourceKeyspace() + "." + t);
      for (String suffix : RULE_SUFFIXES) {
        rules.put(t + suffix, toSource);
        rules.put(spec.targetKeyspace() + "." + t + suffix, toSource);
        rules.put(spec.sourceKeyspace() + "." + t + suffix, toSource);
      }
    }
    return RoutingRules.fromMap(rules);
  }

  /**
   * The rule filter Vitess's materializer writes: {@code select * from t}, restricted to the target
   * shard's key range on the table's primary vindex when the target is sharded, unless the stream's
   * only source covers exactly the target's range.
   */
  private static String filter(MoveTablesSpec spec, VSchema target, String table, KeyRange range, boolean equal) {
    String select = "select * from " + table;
    VSchemaTable vt = target.tables().get(table);
    if (equal || !target.sharded() || REFERENCE.equals(vt.type())) {
      return select;
    }
    ColumnVindex cv = primaryVindex(spec.targetKeyspace(), table, vt);
    String columns = cv.column() != null && !cv.column().isEmpty() ? cv.column() : String.join(", ", cv.columns());
    return select + " where in_keyrange(" + columns + ", '" + spec.targetKeyspace() + "." + cv.name() + "', '"
        + KeyRanges.string(range) + "')";
  }

  private static ColumnVindex primaryVindex(String keyspace, String table, VSchemaTable vt) {
    if (vt.columnVindexes().isEmpty()) {
      throw PointsmanException.failedPrecondition(
          "table " + table + " has no primary vindex in the vschema of keyspace " + keyspace);
    }
    return vt.columnVindexes().get(0);
  }

  /**
   * Vitess streams only from overlapping source shards unless both keyspaces are sharded with
   * different primary vindexes (then every source shard may hold rows of any target shard).
   */
  private static boolean primaryVindexesDiffer(List<String> tables, VSchema source, VSchema target) {
    if (source.sharded() != target.sharded() || !source.sharded()) {
      return false;
    }
    for (String t : tables) {
      VSchemaTable s = source.tables().get(t);
      VSchemaTable g = target.tables().get(t);
      if (s == null || g == null || s.columnVindexes().isEmpty() || g.columnVindexes().isEmpty()) {
        return true;
      }
      ColumnVindex sv = s.columnVindexes().get(0);
      ColumnVindex gv = g.columnVindexes().get(0);
      Vindex sdef = source.vindexes().get(sv.name());
      Vindex gdef = target.vindexes().get(gv.name());
      if (!Objects.equals(sv.column(), gv.column()) || !Objects.equals(sv.columns(), gv.columns())
          || sdef == null || gdef == null || !sdef.type().equalsIgnoreCase(gdef.type())) {
        return true;
      }
    }
    return false;
  }

  private void checkNewWorkflow(MoveTablesSpec spec, Map<String, PrimaryTablet> targets) throws SQLException {
    for (PrimaryTablet t : targets.values()) {
      try (Connection c = t.connect(credentials)) {
        refuseExistingWorkflow(c, t, spec.workflow(), spec.targetKeyspace());
      }
    }
  }

  private Map<String, String> sourceDdl(PrimaryTablet source, List<String> tables) throws SQLException {
    try (Connection c = source.connect(credentials)) {
      List<String> present = BaseTables.of(c, source.dbName());
      for (String t : tables) {
        if (!present.contains(t)) {
          throw PointsmanException.notFound("table " + t + " does not exist in " + source.dbName() + " on "
              + source.alias() + " (" + source.keyspace() + "/" + source.shard() + ")");
        }
      }
      return SchemaCopier.createStatements(c, source.dbName(), tables);
    }
  }

  private void checkTargetsEmpty(MoveTablesSpec spec, Map<String, PrimaryTablet> targets) throws SQLException {
    List<String> nonEmpty = new ArrayList<>();
    for (PrimaryTablet t : targets.values()) {
      try (Connection c = t.connect(credentials)) {
        for (String table : spec.tables()) {
          if (SchemaCopier.hasRows(c, t.dbName(), table) && !nonEmpty.contains(table)) {
            nonEmpty.add(table);
          }
        }
      }
    }
    if (!nonEmpty.isEmpty()) {
      throw PointsmanException.failedPrecondition("non-empty tables found in target keyspace("
          + spec.targetKeyspace() + "): " + String.join(", ", nonEmpty));
    }
  }

  private void deploySchema(Map<String, PrimaryTablet> targets, Map<String, String> ddl, boolean sharded)
      throws SQLException {
    Map<String, String> statements = new LinkedHashMap<>();
    ddl.forEach((t, sql) -> statements.put(t, sharded ? SchemaCopier.withoutAutoIncrement(sql) : sql));
    for (PrimaryTablet t : targets.values()) {
      List<String> created = createMissingTables(t, statements);
      if (!created.isEmpty()) {
        log.info("created tables {} on {}", created, t);
      }
    }
  }

  private Map<String, PrimaryTablet> primaries(String keyspace) {
    Map<String, PrimaryTablet> primaries = new LinkedHashMap<>();
    for (Map.Entry<String, Shard> e : tablets.servingShards(keyspace).entrySet()) {
      primaries.put(e.getKey(), tablets.primary(keyspace, e.getKey()));
    }
    return primaries;
  }

  private VSchema vschema(String keyspace) {
    store.getRequired(store.keys().keyspace(keyspace));
    return store.get(store.keys().vschema(keyspace)).map(Versioned::value).orElse(EMPTY_VSCHEMA);
  }
}
