package io.pointsman.bench;

import io.pointsman.client.TemporalConnection;
import io.pointsman.client.TemporalOptions;
import io.pointsman.engine.net.LoopbackPorts;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testserver.TestServer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What the SDK's hand-offs cost one local activity, without any pointsman code in it: a workflow
 * calls a local activity that only waits for a given time, many times in a row, on the SDK's test
 * server in this JVM over real gRPC (the bench's Temporal by default). Each call's run is timed
 * inside the activity; the gap from one call's end to the next one's start is the SDK's alone (the
 * workflow code between two calls does nothing but call again): the result handed back to the
 * workflow, the workflow resumed, the next call handed to the local-activity executor. A write
 * switch makes about two dozen such calls, each waiting on etcd or MySQL for a millisecond or more.
 */
final class LocalActivityCost {
  private static final String TASK_QUEUE = "bench-local-activity-cost";
  /** Unmeasured calls before each point's measured ones: the JIT and the SDK's threads warm. */
  private static final int WARM_UP_CALLS = 50;
  /** How long the calls wait: not at all (the SDK's bare call), and as a quick and a slower step do. */
  static final List<Duration> WAITS = List.of(Duration.ZERO, Duration.ofMillis(1), Duration.ofMillis(5));

  /** How long each call waits, and what the calls measured. */
  record Point(Duration waited, Stats run, Stats gap) {}

  /** The points, in the order measured. */
  record Figures(List<Point> points) {
    Figures {
      points = List.copyOf(points);
    }

    String markdown() {
      StringBuilder md = new StringBuilder("## What a local activity costs the SDK\n\n");
      md.append("A workflow on the SDK's test server in this JVM, over real gRPC, calls a ")
          .append("local activity that only parks for the time given, again and again; the activity times its ")
          .append("own run, and the gap from one call's end to the next one's start is the SDK's alone: the ")
          .append("result handed back to the workflow, the workflow resumed, the next call handed to the ")
          .append("local-activity executor. No pointsman code runs in it. A write switch makes about two dozen ")
          .append("local-activity calls, each waiting on etcd or MySQL for a millisecond or more.\n\n");
      md.append("| the activity waits (ms) | calls | its run p50 (ms) | gap to the next call: mean (ms) ")
          .append("| p50 / p99 / max |\n|---:|---:|---:|---:|---|\n");
      for (Point p : points) {
        md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s |%n", Stats.millis(p.waited()), p.run().count(),
            Stats.millis(p.run().p50()), Stats.millis(p.gap().mean()), p.gap().summaryMillis()));
      }
      return md.append('\n').toString();
    }
  }

  @ActivityInterface
  public interface Pause {
    /** Parks for {@code nanos} and returns when it started and ended (System.nanoTime). */
    long[] pause(long nanos);
  }

  @WorkflowInterface
  public interface PauseChain {
    /** Calls {@link Pause#pause} {@code calls} times in a row and returns each call's start and end. */
    @WorkflowMethod
    List<long[]> run(long nanos, int calls);
  }

  /** The activity: a wait, as a step waits on a server, stamped on its own thread. */
  public static final class PauseImpl implements Pause {
    @Override
    public long[] pause(long nanos) {
      long start = System.nanoTime();
      long until = start + nanos;
      for (long left = nanos; left > 0; left = until - System.nanoTime()) {
        LockSupport.parkNanos(left);
      }
      return new long[] {start, System.nanoTime()};
    }
  }

  /** The workflow: nothing but the calls, so the time between them is the SDK's. */
  public static final class PauseChainImpl implements PauseChain {
    private final Pause pause = Workflow.newLocalActivityStub(Pause.class,
        LocalActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(30)).build());

    @Override
    public List<long[]> run(long nanos, int calls) {
      List<long[]> stamps = new ArrayList<>(calls);
      for (int i = 0; i < calls; i++) {
        stamps.add(pause.pause(nanos));
      }
      return stamps;
    }
  }

  private LocalActivityCost() {}

  /**
   * Measures each of {@link #WAITS} with {@code calls} calls in one workflow, after a workflow of
   * warm-up calls; through the connection the worker itself uses (its data converter included).
   */
  static Figures run(int calls) {
    int port = LoopbackPorts.freePort();
    TestServer.PortBoundTestServer server = TestServer.createPortBoundServer(port);
    try (TemporalConnection temporal = TemporalConnection.lazy(
        TemporalOptions.builder().address("127.0.0.1:" + port).build(), null)) {
      WorkerFactory factory = WorkerFactory.newInstance(temporal.client());
      Worker worker = factory.newWorker(TASK_QUEUE);
      worker.registerWorkflowImplementationTypes(PauseChainImpl.class);
      worker.registerActivitiesImplementations(new PauseImpl());
      factory.start();
      try {
        List<Point> points = new ArrayList<>();
        for (Duration wait : WAITS) {
          chain(temporal.client(), wait, WARM_UP_CALLS);
          points.add(measure(chain(temporal.client(), wait, calls), wait));
        }
        return new Figures(points);
      } finally {
        factory.shutdownNow();
        factory.awaitTermination(10, TimeUnit.SECONDS);
      }
    } finally {
      server.close();
    }
  }

  private static List<long[]> chain(WorkflowClient client, Duration wait, int calls) {
    // The SDK's default task timeout (10 s) would end a long chain's task and start another.
    PauseChain chain = client.newWorkflowStub(PauseChain.class, WorkflowOptions.newBuilder()
        .setTaskQueue(TASK_QUEUE).setWorkflowTaskTimeout(Duration.ofSeconds(60)).build());
    return chain.run(wait.toNanos(), calls);
  }

  static Point measure(List<long[]> stamps, Duration wait) {
    List<Long> runs = new ArrayList<>();
    List<Long> gaps = new ArrayList<>();
    for (int i = 0; i < stamps.size(); i++) {
      runs.add(stamps.get(i)[1] - stamps.get(i)[0]);
      if (i > 0) {
        gaps.add(stamps.get(i)[0] - stamps.get(i - 1)[1]);
      }
    }
    return new Point(wait, Stats.ofNanos(runs), Stats.ofNanos(gaps));
  }
}
