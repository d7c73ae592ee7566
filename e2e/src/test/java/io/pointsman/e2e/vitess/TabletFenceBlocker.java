package io.pointsman.e2e.vitess;

import io.pointsman.e2e.FenceRowHold;
import io.pointsman.engine.primary.FencePort;
import io.pointsman.engine.primary.ShardRef;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * Holds one lock resource's row of {@code _pointsman.lock_fence} in a shard primary's MariaDB, straight
 * on the tablet's MySQL port ({@link FenceRowHold}): pointsman's next fenced change on that shard
 * ({@code TabletFence}: an insert-on-duplicate-key through vttablet's ExecuteFetchAsDba) then waits
 * inside MariaDB. The worker's raise runs under ExecuteFetchAsDba with the client's 30 s deadline,
 * so a hold must end (kill, {@link #passOne}, close) well within that.
 */
final class TabletFenceBlocker extends FenceRowHold {
  private static final String TABLE = "_pointsman.lock_fence";

  private TabletFenceBlocker(VitessCluster.Tablet tablet, String password, String resource) {
    super(tablet.alias() + " (" + tablet.keyspace() + "/" + tablet.shard() + ")", TABLE, resource,
        () -> DriverManager.getConnection("jdbc:mysql://127.0.0.1:" + tablet.mysqlPort()
            + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true&connectTimeout=10000&socketTimeout=60000",
            "vt_dba", password));
  }

  /**
   * Holds {@code resource}'s fence row on {@code tablet}'s MariaDB. The table is made by pointsman's
   * own fence ({@code fence.highestToken}, through the tablet) when no fenced change has run there
   * yet; the row, with token 0 (below every real token), here.
   */
  static TabletFenceBlocker hold(VitessCluster cluster, VitessCluster.Tablet tablet, FencePort fence, String resource)
      throws SQLException {
    fence.highestToken(new ShardRef(tablet.keyspace(), tablet.shard()), resource);
    TabletFenceBlocker b = new TabletFenceBlocker(tablet, cluster.env("POINTSMAN_VITESS_DB_PASSWORD"), resource);
    b.start();
    return b;
  }
}
