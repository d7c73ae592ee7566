package io.pointsman.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What the benchmark ran on, for the report's first lines: numbers mean little without it. */
record Machine(int cores, String memory, String os, String java, String etcd, String mariadb, String commit) {

  static Machine describe() {
    return new Machine(Runtime.getRuntime().availableProcessors(), readMemory(), readOs(),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
        firstLine("etcd", "--version"), firstLine("mariadbd", "--version"),
        firstLine("git", "rev-parse", "--short", "HEAD"));
  }

  private static String readMemory() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
          return String.format("%.1f GiB", kb / 1024.0 / 1024.0);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux, or unreadable: say so below
    }
    return "unknown";
  }

  private static String readOs() {
    try {
      for (String line : Files.readAllLines(Path.of("/etc/os-release"))) {
        if (line.startsWith("PRETTY_NAME=")) {
          return line.substring("PRETTY_NAME=".length()).replace("\"", "");
        }
      }
    } catch (IOException e) {
      // fall back to the JVM's view
    }
    return System.getProperty("os.name") + " " + System.getProperty("os.version");
  }

  /** The first line a command prints, or {@code unknown} when it cannot run. */
  private static String firstLine(String... command) {
    try {
      Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        return "unknown";
      }
      String line = out.lines().findFirst().orElse("unknown").trim();
      return line.isEmpty() ? "unknown" : line;
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
