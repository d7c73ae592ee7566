package io.pointsman.e2e.process;

import io.pointsman.e2e.FenceRowHold;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.SqlIdentifiers;
import java.sql.SQLException;

/**
 * Holds the row of one lock's fence in a sandbox primary's {@code _vt.lock_fence} ({@link FenceRowHold}).
 * Every guarded change claims the fence rows of all its locks in resource order, so holding the
 * smallest resource stops it at its very first statement, before it changed anything.
 */
final class FenceBlocker extends FenceRowHold {

  private FenceBlocker(ProcessWorld world, String keyspace, String shard, PrimaryEndpoint endpoint, String resource) {
    super(keyspace + "/" + shard, SqlIdentifiers.qualified(endpoint.sidecarDb(), "lock_fence"), resource,
        () -> world.sandbox.connect(keyspace, shard));
  }

  /**
   * Holds, on {@code keyspace/shard}'s primary, the fence row a switch of the world's workflow
   * claims first (its lock resources sorted, as the fence sorts them).
   */
  static FenceBlocker hold(ProcessWorld world, String keyspace, String shard) throws SQLException {
    String first = world.lockDirs().stream().sorted().findFirst().orElseThrow();
    PrimaryEndpoint endpoint = world.primary(keyspace, shard);
    // creates the sidecar table when no fenced change has run on this primary yet
    world.services.fence().highestToken(endpoint, first);
    FenceBlocker b = new FenceBlocker(world, keyspace, shard, endpoint, first);
    b.start();
    return b;
  }
}
