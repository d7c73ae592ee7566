package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.SqlIdentifiers;
import java.sql.Connection;
import java.sql.PreparedStatement;

/**
 * Writes what Vitess writes when it creates a workflow of another kind (a Migrate, a partial or a
 * multi-tenant MoveTables) into the sandbox's {@code _vt.vreplication} rows of a workflow.
 */
final class TargetRows {
  private TargetRows() {}

  /** Applies {@code assignment} (an SQL SET list) to the workflow's rows on every primary of the keyspace. */
  static void set(SwitchWorld world, String keyspace, String workflow, String assignment) throws Exception {
    for (String shard : world.store().listShards(keyspace)) {
      PrimaryEndpoint ep = world.services.primaries().resolve(keyspace, shard);
      try (Connection c = world.services.pools().connection(ep);
          PreparedStatement ps = c.prepareStatement("UPDATE " + SqlIdentifiers.qualified(ep.sidecarDb(),
              "vreplication") + " SET " + assignment + " WHERE workflow = ?")) {
        ps.setString(1, workflow);
        assertThat(ps.executeUpdate()).as("rows of " + workflow + " on " + shard).isPositive();
      }
    }
  }
}
