package io.pointsman.engine.primary.tablet;

import static io.pointsman.engine.tablet.VReplicationStatements.sqlString;

import io.pointsman.api.gtid.Position;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.tablet.TabletQueryResult;
import java.util.Collection;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** Reads of single {@code _vt.vreplication} rows through VReplicationExec, for read-backs by stream id. */
final class StreamRows {
  private StreamRows() {}

  /** What a read-back by id needs of a stream. */
  record Row(int id, String workflow, StreamState state, String message, Position pos) {}

  static Optional<Row> byId(TabletManagerClient client, TabletPrimary p, int id) {
    TabletQueryResult r = client.vreplicationExec(p.endpoint(), "select id, workflow, state, message, pos from _vt.vreplication"
        + " where id = " + id + " and db_name = " + sqlString(p.dbName()));
    if (r.rows().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Row(id, r.value(0, "workflow"), state(r.value(0, "state")),
        nullToEmpty(r.value(0, "message")), Position.parse(nullToEmpty(r.value(0, "pos")))));
  }

  /** The ids among {@code ids} whose copy phase has not finished. */
  static Set<Integer> copying(TabletManagerClient client, TabletPrimary p, Collection<Integer> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    TabletQueryResult r = client.vreplicationExec(p.endpoint(), "select distinct vrepl_id from _vt.copy_state where vrepl_id in ("
        + ids.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ")");
    Set<Integer> out = new HashSet<>();
    r.rows().forEach(row -> out.add(Integer.parseInt(row.get(0))));
    return out;
  }

  private static StreamState state(String column) {
    for (StreamState s : StreamState.values()) {
      if (s.column().equals(column)) {
        return s;
      }
    }
    throw io.pointsman.api.errors.PointsmanException.internal("unknown vreplication state '" + column + "'", null);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
