package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.TopologyStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the sandbox's MoveTables and Reshard creators share: the topology they read the primaries
 * from, the credentials they connect with, and the two steps both take on the target primaries
 * (refusing a workflow name already there, creating the missing tables).
 */
abstract class WorkflowCreator {
  final TopologyStore store;
  final MysqlCredentials credentials;
  final PrimaryTablets tablets;

  WorkflowCreator(TopologyStore store, MysqlCredentials credentials) {
    this.store = Objects.requireNonNull(store, "store");
    this.credentials = Objects.requireNonNull(credentials, "credentials");
    this.tablets = new PrimaryTablets(store);
  }

  /** Refuses, as Vitess's create does, a workflow name the target primary already has streams of. */
  static void refuseExistingWorkflow(Connection c, PrimaryTablet target, String workflow, String keyspace)
      throws SQLException {
    if (!VReplicationTable.read(c, target.sidecarDb(), workflow).isEmpty()) {
      throw PointsmanException.alreadyExists("workflow " + workflow + " already exists in keyspace " + keyspace
          + " on tablet " + target.alias());
    }
  }

  /**
   * Creates the target's database if it is missing, then those of the tables it lacks.
   *
   * @param ddl each table's CREATE statement, by name
   * @return the tables created
   */
  List<String> createMissingTables(PrimaryTablet target, Map<String, String> ddl) throws SQLException {
    try (Connection c = target.connect(credentials)) {
      SchemaCopier.createDatabaseIfMissing(c, target.dbName());
      return SchemaCopier.createMissing(c, target.dbName(), ddl);
    }
  }
}
