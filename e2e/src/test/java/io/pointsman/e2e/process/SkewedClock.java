package io.pointsman.e2e.process;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A wall clock of its own for a worker process: libfaketime preloaded, moving what the process reads
 * as the time of day by a fixed offset while leaving its monotonic clock (System.nanoTime) alone,
 * as an NTP step or a badly set host would.
 */
final class SkewedClock {
  private SkewedClock() {}

  /**
   * The environment that sets the worker's clock {@code offset} from the machine's, in libfaketime's
   * words ({@code +1h}, {@code -30m}).
   */
  static Map<String, String> env(String offset) {
    String lib = System.getenv("POINTSMAN_LIBFAKETIME");
    if (lib == null || lib.isBlank() || !Files.isReadable(Path.of(lib))) {
      throw new IllegalStateException("libfaketime not found (POINTSMAN_LIBFAKETIME=" + lib + "): install the "
          + "faketime package (apt-get install faketime) and run the tests with ./scripts/test.sh, which sets it");
    }
    return Map.of("LD_PRELOAD", lib, "FAKETIME", offset,
        // both spellings: libfaketime renamed the variable, and a faked monotonic clock would move the
        // lock renewer's deadlines too, which is not what a wall clock step does
        "FAKETIME_DONT_FAKE_MONOTONIC", "1", "DONT_FAKE_MONOTONIC", "1",
        // libfaketime 0.9.10's rewrite of monotonic condition waits makes the JVM's timed parks
        // return at once (threads spin) and its sleeps three times too long; without it they are exact
        "FAKETIME_FORCE_MONOTONIC_FIX", "0");
  }
}
