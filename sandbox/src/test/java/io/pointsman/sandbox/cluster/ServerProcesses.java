package io.pointsman.sandbox.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** What a test sees of server processes from outside: which run with a folder on their command line. */
public final class ServerProcesses {
  private ServerProcesses() {}

  /** PIDs of running (not zombie) processes whose command line mentions the folder. */
  public static List<Long> using(Path folder) {
    String marker = folder.toAbsolutePath().normalize().toString();
    return ProcessHandle.allProcesses()
        .filter(ProcessControl::isRunning)
        .filter(p -> p.pid() != ProcessHandle.current().pid())
        .filter(p -> commandLine(p).contains(marker))
        .map(ProcessHandle::pid)
        .toList();
  }

  /**
   * Stops whatever still runs from the folder, for a test's clean-up after a failure: the sandbox's
   * own way first, then by PID.
   */
  public static void stopAll(Path folder) {
    try {
      Sandbox.stopAll(folder, Duration.ofSeconds(10));
    } finally {
      for (long pid : using(folder)) {
        ProcessControl.stop(pid, folder.toAbsolutePath().normalize().toString(), Duration.ofSeconds(10));
      }
    }
  }

  private static String commandLine(ProcessHandle p) {
    try {
      return new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
