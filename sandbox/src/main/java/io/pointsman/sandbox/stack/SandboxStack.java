package io.pointsman.sandbox.stack;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.Services;
import io.pointsman.sandbox.cluster.Folders;
import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.cluster.SandboxOptions;
import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.router.RouterOptions;
import io.pointsman.sandbox.streams.StreamRunner;
import io.pointsman.sandbox.streams.StreamRunnerOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The part of a world that the demo, the benchmarks and the end-to-end tests start alike: a new
 * temporary folder of its own, the sandbox in it, and the stream runner over the sandbox's
 * topology; on request the {@link Services} and the router over them. What a world starts on top
 * (Temporal, a worker, clients) it may {@link #open} here too. Closing stops everything in reverse
 * order and deletes the folder last, also when the start failed half-way: one sandbox holds about
 * half a gigabyte, and a test run starts dozens. What the sandbox itself is set up on (an etcd of the
 * operator's, with auth on) a world starts {@link Builder#before before} it, in the same folder.
 */
public final class SandboxStack implements AutoCloseable {
  /** The stream runner's pace in every world: quick enough that a test does not wait on it. */
  private static final Duration RUNNER_POLL = Duration.ofMillis(25);
  private static final Duration RUNNER_HEARTBEAT = Duration.ofMillis(500);

  private final Path dir;
  private final OpenedParts opened;
  private final Sandbox sandbox;
  private final StreamRunner runner;
  private Services services;
  private Router router;

  private SandboxStack(Path dir, OpenedParts opened, Sandbox sandbox, StreamRunner runner) {
    this.dir = dir;
    this.opened = opened;
    this.sandbox = sandbox;
    this.runner = runner;
  }

  /** A stack in a new temporary folder whose name starts with {@code folderPrefix}. */
  public static Builder in(String folderPrefix) {
    return new Builder(folderPrefix);
  }

  /** The folder the stack owns; deleted on close. */
  public Path dir() {
    return dir;
  }

  public Sandbox sandbox() {
    return sandbox;
  }

  public StreamRunner runner() {
    return runner;
  }

  /** Services over the sandbox's own etcd client and primaries; made on the first call. */
  public synchronized Services services() {
    if (services == null) {
      services = open(new Services(sandbox.etcdClient(), sandbox.options().topoPaths(), sandbox.mysqlOptions()));
    }
    return services;
  }

  /** The router (the sandbox's vtgate) over the sandbox's topology; started on the first call. */
  public synchronized Router router() {
    if (router == null) {
      router = open(Router.start(RouterOptions.builder()
          .store(sandbox.store())
          .mysqlUser(sandbox.options().credentials().user())
          .mysqlPassword(sandbox.options().credentials().password())
          .build()));
    }
    return router;
  }

  /** Closes {@code part} with the stack, before everything opened earlier. */
  public <T extends AutoCloseable> T open(T part) {
    opened.push(Objects.requireNonNull(part, "part"));
    return part;
  }

  /**
   * For a world whose own start failed after the stack's: closes the stack, and any failure to
   * close goes into {@code failure} as a suppressed one, so the start's own error is what is thrown.
   */
  public void closeAfter(Throwable failure) {
    try {
      close();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Stops what was opened, newest first, then deletes the folder; every part is tried.
   *
   * @throws PointsmanException INTERNAL when a part failed to close
   */
  @Override
  public void close() {
    opened.closeAll("the sandbox stack in " + dir);
  }

  /**
   * What a world starts in the stack's folder before the sandbox, because the sandbox is set up on
   * it: e.g. an etcd with TLS and auth on, whose endpoint and credentials the sandbox then uses.
   */
  @FunctionalInterface
  public interface Prelude {
    /**
     * Starts what comes first.
     *
     * @param dir the stack's folder (deleted on close with all in it)
     * @param parts where each started part goes: closed after the sandbox, before the folder is deleted
     * @return the sandbox's options on what was started; applied before {@link Builder#sandbox}'s
     */
    UnaryOperator<SandboxOptions.Builder> open(Path dir, OpenedParts parts) throws Exception;
  }

  /** Where the stack lives and how its sandbox is set up. */
  public static final class Builder {
    private final String folderPrefix;
    private String sandboxSubfolder;
    private UnaryOperator<SandboxOptions.Builder> options = UnaryOperator.identity();
    private Prelude prelude = (dir, parts) -> UnaryOperator.identity();

    private Builder(String folderPrefix) {
      this.folderPrefix = Objects.requireNonNull(folderPrefix, "folderPrefix");
    }

    /**
     * The sandbox's options beyond its data folder; they start as {@code stopOnJvmExit(true)}, so a
     * JVM that ends without closing the stack leaves no server running, unless a caller's own
     * shutdown hook stops the stack and turns that off.
     */
    public Builder sandbox(UnaryOperator<SandboxOptions.Builder> options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /** The sandbox's data goes into this subfolder, leaving the folder's top for other servers' data. */
    public Builder sandboxSubfolder(String name) {
      this.sandboxSubfolder = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Starts {@code prelude} in the folder before the sandbox; its parts close after the sandbox's. */
    public Builder before(Prelude prelude) {
      this.prelude = Objects.requireNonNull(prelude, "prelude");
      return this;
    }

    /**
     * Creates the folder and starts the prelude, the sandbox and the stream runner. When a start
     * fails, what had started is stopped and the folder deleted before the error is thrown.
     */
    public SandboxStack start() {
      OpenedParts opened = new OpenedParts();
      Path dir = createFolder();
      opened.push(() -> Folders.deleteTree(dir));
      try {
        UnaryOperator<SandboxOptions.Builder> onPrelude = openPrelude(dir, opened);
        Path dataDir = sandboxSubfolder == null ? dir : dir.resolve(sandboxSubfolder);
        Sandbox sandbox = Sandbox.up(options.apply(onPrelude.apply(
                SandboxOptions.builder().dataDir(dataDir).stopOnJvmExit(true)))
            .build());
        opened.push(sandbox);
        StreamRunner runner = StreamRunner.start(StreamRunnerOptions.builder()
            .topology(sandbox.store())
            .mysqlCredentials(sandbox.options().credentials().user(), sandbox.options().credentials().password())
            .pollInterval(RUNNER_POLL)
            .heartbeatInterval(RUNNER_HEARTBEAT)
            .build());
        opened.push(runner);
        return new SandboxStack(dir, opened, sandbox, runner);
      } catch (RuntimeException | Error e) {
        try {
          opened.closeAll("the half-started sandbox stack in " + dir);
        } catch (RuntimeException cleanup) {
          e.addSuppressed(cleanup);
        }
        throw e;
      }
    }

    private UnaryOperator<SandboxOptions.Builder> openPrelude(Path dir, OpenedParts opened) {
      try {
        return Objects.requireNonNull(prelude.open(dir, opened), "the prelude's sandbox options");
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw PointsmanException.internal("starting what comes before the sandbox in " + dir + " failed: " + e, e);
      }
    }

    private Path createFolder() {
      try {
        return Files.createTempDirectory(folderPrefix);
      } catch (IOException e) {
        throw new PointsmanException(ErrorCode.FAILED_PRECONDITION,
            "cannot create a data folder named " + folderPrefix + "...: " + e.getMessage(), e);
      }
    }
  }
}
