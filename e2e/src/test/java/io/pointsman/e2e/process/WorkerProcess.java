package io.pointsman.e2e.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pointsman worker in a JVM of its own, started from the packaged jar with nothing but
 * environment variables, so that killing or pausing it is what it would be in production: every
 * socket, lease renewal and in-flight transaction of that process dies or freezes with it.
 */
public final class WorkerProcess implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WorkerProcess.class);

  private final String name;
  private final Process process;
  private final Path logFile;
  private volatile boolean paused;

  private WorkerProcess(String name, Process process, Path logFile) {
    this.name = name;
    this.process = process;
    this.logFile = logFile;
  }

  /**
   * The packaged worker. The e2e module does not depend on it, so it is found by path: the
   * reactor builds {@code worker} (package runs before this module's tests) ahead of e2e.
   */
  public static Path packagedJar() throws IOException {
    return packagedJar("worker");
  }

  /** The packaged jar of {@code module} (worker or cli) with its {@code lib/}, found as {@link #packagedJar()} is. */
  public static Path packagedJar(String module) throws IOException {
    Path target = Path.of("").toAbsolutePath().resolve("../" + module + "/target").normalize();
    String howToBuild = "; build it first: mvn -pl " + module + " package -DskipTests (mvn verify over the reactor does)";
    if (!Files.isDirectory(target)) {
      throw new IllegalStateException("no " + target + howToBuild);
    }
    List<Path> jars = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(target, "pointsman-" + module + "-*.jar")) {
      for (Path p : s) {
        String name = p.getFileName().toString();
        if (!name.endsWith("-tests.jar") && !name.endsWith("-sources.jar")) {
          jars.add(p);
        }
      }
    }
    if (jars.size() != 1) {
      throw new IllegalStateException("expected one " + module + " jar in " + target + ", found " + jars + howToBuild);
    }
    if (!Files.isDirectory(target.resolve("lib"))) {
      throw new IllegalStateException("the " + module + " jar's dependencies are missing: no " + target.resolve("lib")
          + howToBuild);
    }
    return jars.get(0);
  }

  /** Starts {@code java -jar <worker jar>} whose environment is exactly {@code env}; output goes to {@code logFile}. */
  public static WorkerProcess start(String name, Path jar, Map<String, String> env, Path logFile) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // Small heap and C1 only: two or three of these share two cores with the sandbox and the test.
    ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx384m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-jar", jar.toString()));
    pb.environment().clear();
    pb.environment().putAll(env);
    pb.redirectErrorStream(true);
    pb.redirectOutput(logFile.toFile());
    Process p = pb.start();
    log.info("worker {} started as pid {}, log {}", name, p.pid(), logFile);
    return new WorkerProcess(name, p, logFile);
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Whether its output so far contains {@code text}. */
  public boolean logged(String text) {
    return output().contains(text);
  }

  /** SIGKILL, and wait until the process is gone: no shutdown hook, no graceful release of anything. */
  public void kill() throws IOException, InterruptedException {
    if (paused) {
      // SIGKILL ends a stopped process too; resuming first means a failed kill never leaves a frozen one
      resume();
    }
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("worker " + name + " (pid " + pid() + ") survived SIGKILL for 30 s");
    }
    log.info("worker {} (pid {}) killed", name, pid());
  }

  /** SIGSTOP: the JVM freezes mid-whatever, its sockets stay open, nothing it started renews or times out. */
  void pause() throws IOException, InterruptedException {
    signal("STOP");
    paused = true;
    log.info("worker {} (pid {}) paused", name, pid());
  }

  void resume() throws IOException, InterruptedException {
    signal("CONT");
    paused = false;
    log.info("worker {} (pid {}) resumed", name, pid());
  }

  /** The last {@code lines} lines of its output, for failure messages. */
  public String tail(int lines) {
    List<String> all = List.of(output().split("\n"));
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  private String output() {
    try {
      return Files.readString(logFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(cannot read " + logFile + ": " + e + ")";
    }
  }

  private void signal(String signal) throws IOException, InterruptedException {
    if (!process.isAlive()) {
      throw new IllegalStateException("worker " + name + " (pid " + pid() + ") is not running; cannot send SIG"
          + signal);
    }
    List<String> cmd = new ArrayList<>(List.of("kill", "-" + signal, Long.toString(pid())));
    Process kill = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
    }
  }

  /** Never leaves a process behind: a paused one is resumed first so that it can die. */
  @Override
  public void close() throws Exception {
    if (!process.isAlive()) {
      return;
    }
    try {
      if (paused) {
        resume();
      }
    } finally {
      kill();
    }
  }
}
