package io.pointsman.e2e.vitess;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * vtgate's log file of a cluster, read from a mark: what vtgate says about its keyspace events and
 * its buffering is only in its log (it serves no page with them).
 */
final class VtgateLog {
  private final Path file;

  private VtgateLog(Path file) {
    this.file = file;
  }

  static VtgateLog of(VitessCluster cluster) {
    return new VtgateLog(Paths.get(cluster.env("VITESS_CLUSTER_DIR")).resolve("vtgate.log"));
  }

  /** Where the log ends now. */
  long mark() {
    return file.toFile().length();
  }

  /** The whole lines written since {@code mark}. */
  List<String> since(long mark) {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      long end = f.length();
      byte[] bytes = new byte[(int) Math.max(0, end - mark)];
      f.seek(mark);
      f.readFully(bytes);
      String text = new String(bytes, StandardCharsets.UTF_8);
      int last = text.lastIndexOf('\n');
      return last < 0 ? List.of() : text.substring(0, last).lines().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file, e);
    }
  }

  /**
   * The line vtgate logs when a SrvVSchema change shows it a MoveTables of {@code keyspace} whose
   * writes are denied on that keyspace while its routing rules still point at it.
   */
  static String switchingDeclared(String keyspace) {
    return "getMoveTablesStatus: keyspace " + keyspace + " declaring regular move tables {Type: Regular, State: Switching}";
  }
}
