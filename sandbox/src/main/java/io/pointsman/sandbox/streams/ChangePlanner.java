package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.PointsmanException;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a source transaction's row changes into the writes this stream makes on its target. A row
 * counts when its keyspace id falls in the stream's range, before and after the change: an update
 * that moves a row into the range inserts it, one that moves it out deletes it.
 */
final class ChangePlanner {
  private static final Logger log = LoggerFactory.getLogger(ChangePlanner.class);

  /** One target write. */
  sealed interface Write permits Upsert, Update, Delete {
    void execute(Connection c) throws SQLException;
  }

  record Upsert(TableWriter writer, Object[] after) implements Write {
    @Override
    public void execute(Connection c) throws SQLException {
      writer.upsert(c, List.<Object[]>of(after));
    }
  }

  record Update(TableWriter writer, Object[] before, Object[] after) implements Write {
    @Override
    public void execute(Connection c) throws SQLException {
      if (writer.update(c, before, after) == 0) {
        // The target lacks the row (written there by hand, or lost): converge on the source's row.
        log.debug("update of a row missing from {}; inserting it", writer.schema().qualifiedName());
        writer.upsert(c, List.<Object[]>of(after));
      }
    }
  }

  record Delete(TableWriter writer, Object[] before) implements Write {
    @Override
    public void execute(Connection c) throws SQLException {
      writer.delete(c, before);
    }
  }

  private ChangePlanner() {}

  /** The writes, in source order; empty when nothing of the transaction belongs to this stream. */
  static List<Write> plan(Connection target, WorkerSetup setup, List<SourceTransaction.RowChange> changes)
      throws SQLException {
    List<Write> writes = new ArrayList<>();
    for (SourceTransaction.RowChange ch : changes) {
      Optional<TablePlan> plan = setup.plan(target, ch.table());
      if (plan.isEmpty()) {
        continue;
      }
      TablePlan p = plan.get();
      Object[] before = convert(ch.before(), p.schema());
      Object[] after = convert(ch.after(), p.schema());
      boolean beforeIn = before != null && p.matches(before);
      boolean afterIn = after != null && p.matches(after);
      if (beforeIn && afterIn) {
        writes.add(new Update(p.writer(), before, after));
      } else if (beforeIn) {
        writes.add(new Delete(p.writer(), before));
      } else if (afterIn) {
        writes.add(new Upsert(p.writer(), after));
      }
    }
    return writes;
  }

  private static Object[] convert(Serializable[] raw, TableSchema schema) {
    if (raw == null) {
      return null;
    }
    if (raw.length != schema.columns().size()) {
      throw PointsmanException.invalidArgument("binlog rows of " + schema.table() + " have " + raw.length
          + " columns but the target table " + schema.qualifiedName() + " has " + schema.columns().size());
    }
    Object[] out = new Object[raw.length];
    for (int i = 0; i < raw.length; i++) {
      out[i] = BinlogValues.toJdbc(raw[i], schema.columns().get(i));
    }
    return out;
  }
}
