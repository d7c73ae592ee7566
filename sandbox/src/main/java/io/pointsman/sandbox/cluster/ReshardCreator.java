package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.mysql.BaseTables;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.VSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Does what {@code vtctldclient Reshard create} leaves behind, with Vitess's checks: the source
 * shards serve; the target shards exist, have a primary and do not serve (the sandbox creates them
 * so at {@link Sandbox#up}, as starting their tablets does in Vitess); both sides cover the same
 * key range without gaps; no target primary has streams yet. It then copies the schema of the first
 * source primary to every target where tables are missing and inserts, on each target primary, one
 * stream per overlapping source shard whose single rule {@code /.*} filters by the target's key
 * range (reference tables excluded). Shard records and SrvKeyspace are left as they are: the
 * targets serve only after SwitchTraffic.
 */
public final class ReshardCreator extends WorkflowCreator {
  private static final Logger log = LoggerFactory.getLogger(ReshardCreator.class);
  private static final String ALL_TABLES = "/.*";
  private static final String REFERENCE = "reference";

  public ReshardCreator(TopologyStore store, MysqlCredentials credentials) {
    super(store, credentials);
  }

  /**
   * Creates the workflow.
   *
   * @throws PointsmanException NOT_FOUND for a missing keyspace, VSchema or shard;
   *     FAILED_PRECONDITION when a source does not serve, a target serves or has no primary, or a
   *     target primary has streams; ALREADY_EXISTS when it has streams of this very workflow;
   *     INVALID_ARGUMENT when the key ranges do not line up; UNAVAILABLE if MySQL fails
   */
  public CreatedWorkflow create(ReshardSpec spec) {
    String ks = spec.keyspace();
    store.getRequired(store.keys().keyspace(ks));
    VSchema vschema = store.get(store.keys().vschema(ks)).map(Versioned::value).orElseThrow(() ->
        PointsmanException.notFound("keyspace " + ks + " has no VSchema"));
    Map<String, PrimaryTablet> sources = new LinkedHashMap<>();
    for (String shard : spec.sourceShards()) {
      Shard s = shard(ks, shard);
      if (!s.isPrimaryServing()) {
        throw PointsmanException.failedPrecondition("source shard " + ks + "/" + shard + " is not in serving state");
      }
      sources.put(shard, tablets.primary(ks, shard));
    }
    Map<String, PrimaryTablet> targets = new LinkedHashMap<>();
    for (String shard : spec.targetShards()) {
      Shard s = shard(ks, shard);
      if (s.primaryAlias() == null) {
        throw PointsmanException.failedPrecondition("target shard " + ks + "/" + shard + " has no primary tablet");
      }
      if (s.isPrimaryServing()) {
        throw PointsmanException.failedPrecondition("target shard " + ks + "/" + shard + " is in serving state");
      }
      targets.put(shard, tablets.primary(ks, shard));
    }
    KeyRanges.checkSameCoverage(sources.values().stream().map(PrimaryTablet::keyRange).toList(),
        targets.values().stream().map(PrimaryTablet::keyRange).toList());

    try {
      checkTargetsHaveNoStreams(spec, targets);
      copySchema(sources.values().iterator().next(), targets);
    } catch (SQLException e) {
      throw PointsmanException.unavailable("Reshard create of " + spec.workflow() + " failed: " + e.getMessage(), e);
    }

    List<BinlogSource.Rule> excludes = vschema.tables().entrySet().stream()
        .filter(e -> REFERENCE.equals(e.getValue().type()))
        .map(e -> new BinlogSource.Rule(e.getKey(), BinlogSource.Rule.EXCLUDE))
        .toList();
    StreamState state = spec.autoStart() ? StreamState.INIT : StreamState.STOPPED;
    List<CreatedWorkflow.Stream> created = new ArrayList<>();
    for (PrimaryTablet target : targets.values()) {
      List<VReplicationTable.NewStream> rows = new ArrayList<>();
      for (PrimaryTablet source : sources.values()) {
        if (!KeyRanges.intersect(source.keyRange(), target.keyRange())) {
          continue;
        }
        List<BinlogSource.Rule> rules = new ArrayList<>(excludes);
        rules.add(new BinlogSource.Rule(ALL_TABLES, KeyRanges.string(target.keyRange())));
        rows.add(new VReplicationTable.NewStream(spec.workflow(),
            BinlogSource.of(ks, source.shard(), new BinlogSource.Filter(rules)), state, target.dbName(),
            WorkflowType.RESHARD, VReplicationTable.THROTTLER_DISABLED, VReplicationTable.THROTTLER_DISABLED));
      }
      created.addAll(StreamInserter.insert(target, credentials, rows));
    }
    log.info("created Reshard workflow {}.{}: {} -> {}, {} streams ({})", ks, spec.workflow(), spec.sourceShards(),
        spec.targetShards(), created.size(), state);
    return new CreatedWorkflow(spec.workflow(), ks, WorkflowType.RESHARD, created);
  }

  private Shard shard(String keyspace, String shard) {
    Optional<Versioned<Shard>> s = store.get(store.keys().shard(keyspace, shard));
    return s.map(Versioned::value).orElseThrow(() -> PointsmanException.notFound("shard " + keyspace + "/" + shard
        + " does not exist; in the sandbox, Reshard targets exist when it runs their primaries"));
  }

  private void checkTargetsHaveNoStreams(ReshardSpec spec, Map<String, PrimaryTablet> targets) throws SQLException {
    for (PrimaryTablet t : targets.values()) {
      try (Connection c = t.connect(credentials)) {
        refuseExistingWorkflow(c, t, spec.workflow(), spec.keyspace());
        if (VReplicationTable.hasStreams(c, t.sidecarDb(), t.dbName())) {
          throw PointsmanException.failedPrecondition("some streams already exist in the target shards ("
              + t + "), please clean them up and retry the command");
        }
      }
    }
  }

  /** Vitess's CopySchemaShard from one source primary: every table, created where missing. */
  private void copySchema(PrimaryTablet source, Map<String, PrimaryTablet> targets) throws SQLException {
    Map<String, String> ddl;
    try (Connection c = source.connect(credentials)) {
      ddl = SchemaCopier.createStatements(c, source.dbName(), BaseTables.of(c, source.dbName()));
    }
    for (PrimaryTablet t : targets.values()) {
      List<String> created = createMissingTables(t, ddl);
      if (!created.isEmpty()) {
        log.info("copied tables {} from {} to {}", created, source, t);
      }
    }
  }
}
