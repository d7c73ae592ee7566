package io.pointsman.e2e.vitess;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;

/** Stopping a Vitess server a test started, reading its log, removing its folder. */
final class ChildServers {
  private ChildServers() {}

  /** SIGTERM, then SIGKILL if it has not ended within {@code grace}. */
  static void stop(Process process, Duration grace) {
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static String log(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  static void deleteFolder(Path dir) {
    try (var files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temporary folder left behind is harmless
    }
  }
}
