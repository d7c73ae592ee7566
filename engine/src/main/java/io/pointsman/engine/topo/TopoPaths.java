package io.pointsman.engine.topo;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import java.util.Objects;

/**
 * The etcd keys of Vitess's etcd2topo layout (docs/architecture.md §6.1) under a global root and per-cell
 * roots. Every name is validated before it becomes part of a key, so no input can reach another
 * key than the one its record type names.
 */
public final class TopoPaths {
  public static final String DEFAULT_GLOBAL_ROOT = "/vitess/global";
  /** Cell roots default to {@code /vitess/<cell>}, as in the Vitess local examples. */
  public static final String DEFAULT_CELL_ROOT_PREFIX = "/vitess";

  private static final String LOCKS = "locks";

  private final String globalRoot;
  private final String cellRootPrefix;

  public TopoPaths(String globalRoot, String cellRootPrefix) {
    this.globalRoot = root("global root", globalRoot);
    this.cellRootPrefix = root("cell root prefix", cellRootPrefix);
  }

  public static TopoPaths defaults() {
    return new TopoPaths(DEFAULT_GLOBAL_ROOT, DEFAULT_CELL_ROOT_PREFIX);
  }

  public String globalRoot() {
    return globalRoot;
  }

  public String cellRoot(String cell) {
    return cellRootPrefix + "/" + Names.cell(cell);
  }

  public String cellRootPrefix() {
    return cellRootPrefix;
  }

  /** {@code <global>/keyspaces/}: the prefix under which every keyspace lives. */
  public String keyspacesPrefix() {
    return globalRoot + "/keyspaces/";
  }

  public String keyspaceDir(String keyspace) {
    return keyspacesPrefix() + Names.keyspace(keyspace);
  }

  public String keyspace(String keyspace) {
    return keyspaceDir(keyspace) + "/Keyspace";
  }

  public String vschema(String keyspace) {
    return keyspaceDir(keyspace) + "/VSchema";
  }

  public String shardsPrefix(String keyspace) {
    return keyspaceDir(keyspace) + "/shards/";
  }

  public String shardDir(String keyspace, String shard) {
    return shardsPrefix(keyspace) + Names.shard(shard);
  }

  public String shard(String keyspace, String shard) {
    return shardDir(keyspace, shard) + "/Shard";
  }

  public String routingRules() {
    return globalRoot + "/RoutingRules";
  }

  public String shardRoutingRules() {
    return globalRoot + "/ShardRoutingRules";
  }

  /** Vitess's keyspace routing rules (multi-tenant MoveTables). */
  public String keyspaceRoutingRules() {
    return globalRoot + "/routing_rules/keyspace/Rules";
  }

  /** Vitess 24's mirror rules. */
  public String mirrorRules() {
    return globalRoot + "/MirrorRules";
  }

  public String cellsPrefix() {
    return globalRoot + "/cells/";
  }

  /** Vitess's CellsAlias record: {@code <global>/cells_aliases/<alias>/CellsAlias}. */
  public String cellsAlias(String alias) {
    return globalRoot + "/cells_aliases/" + Names.cell(alias) + "/CellsAlias";
  }

  public String cellInfo(String cell) {
    return cellsPrefix() + Names.cell(cell) + "/CellInfo";
  }

  public String srvKeyspace(String cell, String keyspace) {
    return cellRoot(cell) + "/keyspaces/" + Names.keyspace(keyspace) + "/SrvKeyspace";
  }

  public String srvVSchema(String cell) {
    return cellRoot(cell) + "/SrvVSchema";
  }

  public String tabletsPrefix(String cell) {
    return cellRoot(cell) + "/tablets/";
  }

  public String tablet(TabletAlias alias) {
    return tabletsPrefix(alias.cell()) + alias + "/Tablet";
  }

  /** The directory of a named lock: {@code <global>/internal/named_locks/<name>}; names may nest with '/'. */
  public String namedLockDir(String name) {
    if (name == null || name.isEmpty()) {
      throw PointsmanException.invalidArgument("lock name is empty");
    }
    for (String part : name.split("/", -1)) {
      Names.workflow(part); // the same character rules as keyspace and workflow names
    }
    return globalRoot + "/internal/named_locks/" + name;
  }

  /**
   * Where pointsman records a Complete or Cancel that began and has not finished:
   * {@code <global>/internal/pointsman_cleanups/<keyspace>/<workflow>}.
   */
  public String unfinishedCleanup(String keyspace, String workflow) {
    return globalRoot + "/internal/pointsman_cleanups/" + Names.keyspace(keyspace) + "/" + Names.workflow(workflow);
  }

  /** The {@code locks/} directory of a lockable resource directory. */
  public static String locksPrefix(String resourceDir) {
    return resourceDir + "/" + LOCKS + "/";
  }

  /** Whether a key below a keyspace or shard directory belongs to a lock rather than to a record. */
  public static boolean isLockKey(String key) {
    return key.contains("/" + LOCKS + "/");
  }

  private static String root(String what, String root) {
    Objects.requireNonNull(root, what);
    if (!root.startsWith("/") || root.endsWith("/") || root.contains("//") || root.length() < 2) {
      throw PointsmanException.invalidArgument(
          what + " '" + root + "' must start with '/', not end with '/', and have no empty parts");
    }
    return root;
  }
}
