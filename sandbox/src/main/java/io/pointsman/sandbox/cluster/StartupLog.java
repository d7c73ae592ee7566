package io.pointsman.sandbox.cluster;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The part of a server's log written since the sandbox launched it. Servers append to their logs
 * across starts, so only this part says why the latest start failed. A server that could not bind
 * its port says "address already in use" there, in mariadbd's words ("Bind on TCP/IP port. Got
 * error: 98: Address already in use") and in etcd's ("bind: address already in use") alike.
 */
final class StartupLog {
  private static final String PORT_TAKEN = "address already in use";
  /** Enough for the last lines of a failed start; a server's log can be long after many starts. */
  private static final int MAX_READ = 64 * 1024;

  private final Path file;
  private final long offset;

  private StartupLog(Path file, long offset) {
    this.file = file;
    this.offset = offset;
  }

  /** Marks the log's current end, before the server is launched. */
  static StartupLog mark(Path file) {
    try {
      return new StartupLog(file, Files.exists(file) ? Files.size(file) : 0);
    } catch (IOException e) {
      return new StartupLog(file, 0);
    }
  }

  /** Whether the server wrote, since the mark, that its port was in use. */
  boolean reportsPortTaken() {
    return sinceMark().toLowerCase(Locale.ROOT).contains(PORT_TAKEN);
  }

  private String sinceMark() {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      long end = f.length();
      long from = Math.max(offset, end - MAX_READ);
      if (end <= from) {
        return "";
      }
      byte[] bytes = new byte[(int) (end - from)];
      f.seek(from);
      f.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
