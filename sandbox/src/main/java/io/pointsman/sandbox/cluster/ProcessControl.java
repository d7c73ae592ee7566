package io.pointsman.sandbox.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops server processes by PID: SIGTERM, a bounded wait for a clean shutdown, then SIGKILL. Works
 * for processes this JVM started and for ones an earlier sandbox process left behind, and only
 * touches a PID whose command line still names the sandbox folder it was started with, so a PID
 * the kernel has since reused for something else is left alone.
 */
final class ProcessControl {
  private static final Logger log = LoggerFactory.getLogger(ProcessControl.class);
  private static final Duration POLL = Duration.ofMillis(50);
  private static final Duration KILL_WAIT = Duration.ofSeconds(10);

  private ProcessControl() {}

  /**
   * Stops the process if it is still the one started with {@code marker} on its command line.
   *
   * @throws IllegalStateException if it survives SIGKILL (should not happen; reported, not hidden)
   */
  static StopOutcome stop(long pid, String marker, Duration grace) {
    Optional<ProcessHandle> handle = ProcessHandle.of(pid).filter(ProcessControl::isRunning);
    if (handle.isEmpty()) {
      return StopOutcome.NOT_RUNNING;
    }
    if (!commandLineContains(handle.get(), marker)) {
      log.warn("pid {} no longer runs the sandbox program started for {}; leaving it alone", pid, marker);
      return StopOutcome.NOT_RUNNING;
    }
    return stop(handle.get(), grace);
  }

  /** Stops a process this JVM holds a handle of (no identity check needed). */
  static StopOutcome stop(ProcessHandle handle, Duration grace) {
    if (!isRunning(handle)) {
      return StopOutcome.NOT_RUNNING;
    }
    handle.destroy(); // SIGTERM: mariadbd and etcd both shut down cleanly on it
    if (awaitExit(handle, grace)) {
      return StopOutcome.STOPPED;
    }
    log.warn("pid {} did not stop within {} after SIGTERM; killing it", handle.pid(), grace);
    handle.destroyForcibly();
    if (awaitExit(handle, KILL_WAIT)) {
      return StopOutcome.KILLED;
    }
    throw new IllegalStateException("pid " + handle.pid() + " survived SIGKILL for " + KILL_WAIT);
  }

  /**
   * Kills a child process of this JVM at once (SIGKILL), and waits until it is reaped. Not until
   * it looks like a zombie: a killed multi-threaded server's main thread shows as one while its
   * other threads still exit, holding its sockets and files open a little longer.
   */
  static StopOutcome kill(ProcessHandle handle) {
    if (!isRunning(handle)) {
      return StopOutcome.NOT_RUNNING;
    }
    handle.destroyForcibly();
    try {
      handle.onExit().get(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      return StopOutcome.KILLED;
    } catch (TimeoutException e) {
      throw new IllegalStateException("pid " + handle.pid() + " survived SIGKILL for " + KILL_WAIT, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot wait for pid " + handle.pid() + " to exit", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for pid " + handle.pid() + " to exit", e);
    }
  }

  /**
   * Whether the process runs. A zombie does not: once a parent that never reaps (a container's
   * init, say) inherits an exited server, its PID lingers in state Z, yet the server is gone.
   */
  static boolean isRunning(long pid) {
    return ProcessHandle.of(pid).map(ProcessControl::isRunning).orElse(false);
  }

  static boolean isRunning(ProcessHandle handle) {
    if (!handle.isAlive()) {
      return false;
    }
    return !isZombie(handle.pid());
  }

  private static boolean awaitExit(ProcessHandle handle, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (isRunning(handle)) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return !isRunning(handle);
      }
    }
    return true;
  }

  private static boolean commandLineContains(ProcessHandle handle, String marker) {
    // /proc/<pid>/cmdline is NUL-separated; ProcessHandle.Info may truncate or omit arguments.
    Path cmdline = Path.of("/proc", Long.toString(handle.pid()), "cmdline");
    try {
      if (Files.isReadable(cmdline)) {
        return new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).contains(marker);
      }
    } catch (IOException e) {
      log.debug("cannot read {}: {}", cmdline, e.toString());
    }
    return handle.info().commandLine().map(c -> c.contains(marker)).orElse(false);
  }

  private static boolean isZombie(long pid) {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    try {
      if (!Files.isReadable(stat)) {
        return false;
      }
      String s = Files.readString(stat, StandardCharsets.UTF_8);
      // "<pid> (<comm>) <state> ...": comm may contain spaces and parentheses, so split after the last ')'.
      int close = s.lastIndexOf(')');
      return close > 0 && s.length() > close + 2 && s.charAt(close + 2) == 'Z';
    } catch (IOException e) {
      return false; // gone between the checks: the caller's isAlive settles it
    }
  }
}
