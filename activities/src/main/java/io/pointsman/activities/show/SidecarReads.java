package io.pointsman.activities.show;

import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.primary.ShardRef;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * What Show and Status read from a shard's primary: the workflow's stream rows and, from the sidecar
 * database, its copy state and log. Read-only. Served by MySQL directly on the sandbox
 * ({@link MySqlSidecarReads}) and by vttablet RPCs on real Vitess ({@link TabletSidecarReads}).
 */
public interface SidecarReads {

  /** The workflow's streams on the shard's primary, by id; empty when it has none there. */
  List<Stream> streams(ShardRef shard, String workflow);

  /** The {@code _vt.copy_state} rows of the given streams: the tables whose copy has not finished. */
  List<CopyStateRow> copyStates(ShardRef shard, Collection<Integer> streamIds);

  /** The {@code _vt.vreplication_log} rows of the given streams, oldest first; empty when there is no log table. */
  List<LogRow> logs(ShardRef shard, Collection<Integer> streamIds);

  /** Row and byte estimates of the given tables in the shard's database, as information_schema has them. */
  Map<String, TableSize> tableSizes(ShardRef shard, Collection<String> tables);

  /** One table still being copied by one stream, and the last primary key copied. */
  record CopyStateRow(int streamId, String table, String lastPk) {}

  /** One row of the stream log. */
  record LogRow(long id, int streamId, String type, String state, Instant createdAt, Instant updatedAt,
      String message, long count) {}

  /** information_schema.tables' estimate of a table: table_rows and data_length. */
  record TableSize(long rows, long bytes) {}
}
