package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.SidecarText;

/**
 * Reads the {@code source} column into the shared {@link BinlogSource}: protobuf text of
 * binlogdata.BinlogSource, as Vitess and io.pointsman.engine.mysql write it, and checks it names
 * what the runner needs. A malformed value is a permanent error of the stream, reported in its
 * row, never a crash of the runner.
 */
final class SourceCodec {
  private SourceCodec() {}

  /**
   * @param row names the row for errors, e.g. {@code _vt.vreplication id 3}
   */
  static BinlogSource decode(String row, String text) {
    BinlogSource s = SidecarText.decodeSource(row, text);
    if (s.keyspace().isEmpty() || s.shard().isEmpty()) {
      throw PointsmanException.invalidArgument(row + ": the stream source names no keyspace or shard");
    }
    if (s.filter().rules().isEmpty()) {
      throw PointsmanException.invalidArgument(row + ": the stream source has no filter rules");
    }
    return s;
  }
}
