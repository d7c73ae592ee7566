package io.pointsman.engine.tablet;

import com.google.protobuf.TextFormat;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowSubType;
import io.pointsman.engine.mysql.WorkflowType;
import java.time.Clock;

/**
 * Statements for VReplicationExec, for the steps vtctld (v24) still takes through it rather than
 * through a dedicated RPC: creating the reverse streams at a given position, stopping one stream
 * for the cut-over, and writing or reading the resharding journal. vttablet accepts only
 * statements on {@code _vt.vreplication} (by id or workflow), {@code _vt.resharding_journal} and
 * the copy-state tables, and hands changes to its VReplication engine, which starts and stops the
 * stream controllers accordingly.
 */
public final class VReplicationStatements {
  private VReplicationStatements() {}

  /**
   * A new stream of {@code workflow} reading {@code source} from {@code position}, in {@code state}
   * (Stopped for a reverse stream that is started only once the journal is written). The stream's
   * {@code source} column holds the BinlogSource in protobuf text form, as the tablet reads it.
   */
  public static String insertStream(String workflow, BinlogSource source, String position, StreamState state,
      String dbName, WorkflowType type, WorkflowSubType subType, Clock clock) {
    requireText("workflow", workflow);
    requireText("dbName", dbName);
    if (position == null) {
      throw PointsmanException.invalidArgument("stream of workflow '" + workflow + "' has no start position");
    }
    String sourceText = TextFormat.printer().emittingSingleLine(true).printToString(TabletProtos.source(source));
    // max_tps and max_replication_lag as Vitess writes them when their throttler modules are off
    return "insert into _vt.vreplication (workflow, source, pos, max_tps, max_replication_lag, time_updated, "
        + "transaction_timestamp, state, db_name, workflow_type, workflow_sub_type, options) values ("
        + sqlString(workflow) + ", " + sqlString(sourceText) + ", " + sqlString(position) + ", 9223372036854775807, "
        + "9223372036854775807, " + clock.instant().getEpochSecond() + ", 0, " + sqlString(state.column()) + ", "
        + sqlString(dbName) + ", " + type.code() + ", " + subType.code() + ", '{}')";
  }

  /** Stops one stream with a message, as vtctld does after a stream caught up for the cut-over. */
  public static String stopStream(int streamId, String message) {
    return "update _vt.vreplication set state = " + sqlString(StreamState.STOPPED.column()) + ", message = "
        + sqlString(message) + " where id = " + streamId;
  }

  /** The journal of migration {@code journalId}: one row whose {@code val} is a binlogdata.Journal in text form. */
  public static String readJournal(long journalId) {
    return "select val from _vt.resharding_journal where id = " + journalId;
  }

  /** A SQL string literal with the escapes MySQL and Vitess's parser both understand. */
  public static String sqlString(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('\'');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\0' -> b.append("\\0");
        case '\'' -> b.append("\\'");
        case '"' -> b.append("\\\"");
        case '\b' -> b.append("\\b");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case 26 -> b.append("\\Z");
        case '\\' -> b.append("\\\\");
        default -> b.append(c);
      }
    }
    return b.append('\'').toString();
  }

  private static void requireText(String what, String v) {
    if (v == null || v.isBlank()) {
      throw PointsmanException.invalidArgument(what + " is empty");
    }
  }
}
