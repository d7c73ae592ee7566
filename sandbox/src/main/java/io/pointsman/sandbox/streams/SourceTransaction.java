package io.pointsman.sandbox.streams;

import io.pointsman.api.gtid.MariadbGtidSet;
import java.io.Serializable;
import java.util.List;

/**
 * One committed source transaction as the binlog delivered it: its GTID, its commit time and the
 * row changes it made in the source database (changes in other databases are already left out).
 * An empty transaction still moves the stream's position.
 */
record SourceTransaction(MariadbGtidSet.Gtid gtid, long timestampSeconds, List<RowChange> changes, List<String> ddl)
    implements ReaderEvent {
  SourceTransaction {
    changes = List.copyOf(changes);
    ddl = List.copyOf(ddl);
  }

  /**
   * One row of a rows event, values in the table's column order: {@code before} is absent for an
   * insert, {@code after} for a delete.
   */
  record RowChange(String table, Serializable[] before, Serializable[] after) {}
}
