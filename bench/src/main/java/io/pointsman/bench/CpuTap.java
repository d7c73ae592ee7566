package io.pointsman.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * CPU time spent while something ran: this JVM's threads by family (a thread's name with its
 * numbers taken out, so a pool's threads add up), and the sandbox's servers (etcd, MariaDB) from
 * /proc. On a machine of two cores, a switch through Temporal competes with its own machinery for
 * them; the bench reads here how much of it each executor's switch takes, which its wall-clock
 * times cannot tell apart from a busy machine. A thread that ended in between is not counted; one
 * that started is counted whole.
 */
final class CpuTap {
  private static final Pattern NUMBERS = Pattern.compile("\\d+");
  /** /proc's clock ticks a second: 100 on Linux for x86 and arm64. */
  private static final long TICKS_PER_SECOND = 100;

  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final List<Long> serverPids;

  CpuTap(List<Long> serverPids) {
    this.serverPids = List.copyOf(serverPids);
    if (threads.isThreadCpuTimeSupported() && !threads.isThreadCpuTimeEnabled()) {
      threads.setThreadCpuTimeEnabled(true);
    }
  }

  /** Whether this JVM reports CPU time per thread; without it the bench leaves the section out. */
  boolean supported() {
    return threads.isThreadCpuTimeSupported();
  }

  Snapshot take() {
    long[] ids = threads.getAllThreadIds();
    ThreadInfo[] infos = threads.getThreadInfo(ids);
    Map<Long, ThreadCpu> cpu = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      long nanos = threads.getThreadCpuTime(ids[i]);
      if (infos[i] != null && nanos >= 0) {
        cpu.put(ids[i], new ThreadCpu(family(infos[i].getThreadName()), nanos));
      }
    }
    long servers = 0;
    for (long pid : serverPids) {
      servers += processCpuNanos(pid);
    }
    return new Snapshot(cpu, servers);
  }

  /** The CPU time taken from {@code before} to {@code after}. */
  static CpuUse between(Snapshot before, Snapshot after) {
    Map<String, Long> byFamily = new TreeMap<>();
    after.threads().forEach((id, now) -> {
      ThreadCpu then = before.threads().get(id);
      long used = now.nanos() - (then == null ? 0 : then.nanos());
      if (used > 0) {
        byFamily.merge(now.family(), used, Long::sum);
      }
    });
    return new CpuUse(byFamily, Math.max(0, after.serversNanos() - before.serversNanos()));
  }

  static String family(String threadName) {
    return NUMBERS.matcher(threadName).replaceAll("#");
  }

  /** utime + stime of a process, all its threads; 0 when it is gone. */
  private static long processCpuNanos(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // the command name, in parentheses, may hold spaces: the fields are counted after its end
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
      return ticks * 1_000_000_000L / TICKS_PER_SECOND;
    } catch (IOException | RuntimeException gone) {
      return 0;
    }
  }

  record ThreadCpu(String family, long nanos) {}

  record Snapshot(Map<Long, ThreadCpu> threads, long serversNanos) {}

  /**
   * CPU time by thread family of this JVM, and of the sandbox's servers together.
   *
   * @param families nanoseconds by thread family
   */
  record CpuUse(Map<String, Long> families, long serversNanos) {
    Duration jvm() {
      return Duration.ofNanos(families.values().stream().mapToLong(Long::longValue).sum());
    }

    Duration servers() {
      return Duration.ofNanos(serversNanos);
    }
  }
}
