package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Inserts a workflow's streams on one target primary in a single transaction. */
final class StreamInserter {
  private StreamInserter() {}

  static List<CreatedWorkflow.Stream> insert(
      PrimaryTablet target, MysqlCredentials credentials, List<VReplicationTable.NewStream> rows) {
    List<CreatedWorkflow.Stream> created = new ArrayList<>();
    try (Connection c = target.connect(credentials)) {
      c.setAutoCommit(false);
      try {
        for (VReplicationTable.NewStream row : rows) {
          long id = VReplicationTable.insert(c, target.sidecarDb(), row);
          created.add(new CreatedWorkflow.Stream(target.shard(), target.alias(), id, row.source(), row.state()));
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw PointsmanException.unavailable("cannot insert the streams on " + target + ": " + e.getMessage(), e);
    }
    return created;
  }
}
