package io.pointsman.engine.switching;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamRef;
import io.pointsman.api.names.Names;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.Journal;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.primary.PrimaryPorts;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.StreamsPort;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Shard;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Vitess's buildTrafficSwitcher: finds the workflow's streams on the target keyspace's primaries
 * and derives from them the source keyspace and shards, the tables, the migration type and the
 * journal id. Read-only.
 */
public final class MigrationReader {
  /** Shards in key-range order, as Vitess lists them. */
  static final Comparator<String> SHARD_ORDER =
      Comparator.comparing((String s) -> KeyRange.ofShard(s).start(), Names::compareHexBounds)
          .thenComparing(Comparator.naturalOrder());

  private final TopologyStore store;
  private final Function<ShardRef, PrimaryPorts> primaries;

  /** @param primaries what serves each shard's primary (vttablet's RPCs or its MySQL) */
  public MigrationReader(TopologyStore store, Function<ShardRef, PrimaryPorts> primaries) {
    this.store = store;
    this.primaries = primaries;
  }

  public MigrationInfo read(String targetKeyspace, String workflow) {
    return scan(targetKeyspace, workflow).info();
  }

  /**
   * {@link #read}, refusing a workflow that pointsman's actions are not written for (see
   * {@link UnsupportedWorkflows}): what SwitchTraffic, ReverseTraffic, Complete and Cancel plan from,
   * so each refuses it before its locks and before any change, its dry run too.
   */
  public MigrationInfo readSwitchable(String targetKeyspace, String workflow) {
    Scan scan = scan(targetKeyspace, workflow);
    MigrationInfo info = scan.info();
    // The streams' own refusals (a Migrate's source is in another cluster) come before this one.
    UnsupportedWorkflows.check(info, scan.streams(), keyspace -> {
      if (keyspace.equals(info.sourceKeyspace()) && !keyspace.equals(targetKeyspace)
          && store.get(store.keys().keyspace(keyspace)).isEmpty()) {
        throw PointsmanException.failedPrecondition("workflow " + info.qualifiedName() + " moves tables from"
            + " keyspace " + keyspace + ", which the topology no longer has; switching traffic needs it. If it was"
            + " deleted for good, Complete or Cancel can still finish the workflow on " + targetKeyspace + " alone"
            + " with ignoreSourceKeyspace (--ignore-source-keyspace). Nothing was changed");
      }
      return shards(keyspace);
    });
    return info;
  }

  /**
   * {@link #readSwitchable} without reading anything of the source keyspace, for a Complete or
   * Cancel asked to ignore it (a source deleted or out of reach): the target's streams name the source
   * shards, and the switcher is marked {@link MigrationInfo#sourceIgnored}. Only a MoveTables can
   * ignore its source; a Reshard's source keyspace is its target.
   */
  public MigrationInfo readIgnoringSource(String targetKeyspace, String workflow) {
    Scan scan = scan(targetKeyspace, workflow);
    if (scan.info().migrationType() != MigrationType.TABLES) {
      throw PointsmanException.invalidArgument("workflow " + scan.info().qualifiedName() + " is a Reshard of "
          + targetKeyspace + ": ignoreSourceKeyspace (--ignore-source-keyspace) is for MoveTables, whose source is"
          + " another keyspace; a Reshard's source keyspace is its target, which Complete and Cancel must read."
          + " Nothing was changed");
    }
    UnsupportedWorkflows.checkIgnoringSource(scan.info(), scan.streams(), this::shards);
    return scan.info().ignoringSource();
  }

  private Map<String, Shard> shards(String keyspace) {
    Map<String, Shard> out = new TreeMap<>();
    for (String shard : store.listShards(keyspace)) {
      out.put(shard, store.getRequired(store.keys().shard(keyspace, shard)).value());
    }
    return out;
  }

  /**
   * The one keyspace a workflow's target streams read from.
   *
   * @param found whether any primary of the target shards has streams of the workflow
   * @throws PointsmanException NOT_FOUND when none has; FAILED_PRECONDITION when the streams read
   *     from more than one keyspace
   */
  public static String onlySourceKeyspace(String targetKeyspace, String workflow, boolean found,
      Set<String> sourceKeyspaces) {
    if (!found) {
      throw PointsmanException.notFound("workflow " + workflow + " not found in keyspace " + targetKeyspace
          + ": no primary of its shards has streams of that name");
    }
    if (sourceKeyspaces.size() != 1) {
      throw PointsmanException.failedPrecondition("workflow " + targetKeyspace + "." + workflow
          + " reads from more than one keyspace: " + sourceKeyspaces);
    }
    return sourceKeyspaces.iterator().next();
  }

  /** The workflow as read, and the target streams it was read from. */
  private record Scan(MigrationInfo info, List<Stream> streams) {}

  private Scan scan(String targetKeyspace, String workflow) {
    Names.keyspace(targetKeyspace);
    Names.workflow(workflow);
    Map<String, List<Integer>> idsByShard = new TreeMap<>();
    List<StreamRef> refs = new ArrayList<>();
    List<Stream> all = new ArrayList<>();
    Set<String> sourceKeyspaces = new TreeSet<>();
    Set<String> sourceShards = new TreeSet<>(SHARD_ORDER);
    Set<String> tables = new TreeSet<>();
    boolean frozen = false;
    for (String shard : store.listShards(targetKeyspace)) {
      Shard record = store.getRequired(store.keys().shard(targetKeyspace, shard)).value();
      if (record.primaryAlias() == null) {
        continue; // a shard without a primary cannot run streams
      }
      List<Stream> found = streams(targetKeyspace, shard).read(new ShardRef(targetKeyspace, shard), workflow);
      all.addAll(found);
      for (Stream s : found) {
        BinlogSource src = s.source();
        sourceKeyspaces.add(src.keyspace());
        sourceShards.add(src.shard());
        src.filter().rules().stream().filter(r -> !r.isExclude()).forEach(r -> tables.add(r.match()));
        idsByShard.computeIfAbsent(shard, k -> new ArrayList<>()).add(s.id());
        refs.add(new StreamRef(shard, s.id(), src.shard()));
        frozen |= s.isFrozen();
      }
    }
    String sourceKeyspace = onlySourceKeyspace(targetKeyspace, workflow, !refs.isEmpty(), sourceKeyspaces);
    List<String> targetShards = idsByShard.keySet().stream().sorted(SHARD_ORDER).toList();
    MigrationType type = MigrationType.of(sourceKeyspace, targetKeyspace, sourceShards, targetShards);
    refs.sort(Comparator.comparing(StreamRef::targetShard, SHARD_ORDER).thenComparingLong(StreamRef::id));
    return new Scan(new MigrationInfo(workflow, sourceKeyspace, targetKeyspace, type, List.copyOf(tables),
        List.copyOf(sourceShards), targetShards, refs, Journal.migrationId(targetKeyspace, idsByShard), frozen),
        List.copyOf(all));
  }

  private StreamsPort streams(String keyspace, String shard) {
    return primaries.apply(new ShardRef(keyspace, shard)).streams();
  }
}
