package io.pointsman.e2e;

import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.SavedStream;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.model.SequenceValue;
import io.pointsman.api.model.ShardPositions;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.WorkflowState;
import io.temporal.activity.Activity;
import io.temporal.client.ActivityCompletionException;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Faults injected into the real switch activities: a {@link SwitchWorld} wraps its
 * {@link SwitchActivities} with {@link #apply}, and a test arms one fault at a time on a step,
 * before or after the real step ran. Every fault fires once and disarms, so the compensation that
 * calls the same activity (switchReads undoes switchReads) and a rerun run the real step. Every call
 * is recorded with the fencing token it was made under and how it ended.
 */
public final class FaultInjection implements UnaryOperator<SwitchActivities> {
  /** Whether a fault fires before the real step runs, or after it took effect. */
  public enum When {
    BEFORE,
    AFTER;

    String text() {
      return this == BEFORE ? "before it ran" : "after it ran";
    }
  }

  /**
   * One activity call as it ended.
   *
   * @param token the fencing token of the LockSet it was given; 0 for read-only steps
   * @param outcome {@code ok}, or the failure's type (or class) when it failed
   */
  public record Call(String step, long token, String outcome) {
    boolean succeeded() {
      return outcome.equals("ok");
    }
  }

  /** How long a blocked step waits for its release before going on anyway, so no test hangs. */
  private static final Duration MAX_BLOCK = Duration.ofMinutes(3);

  private final ConcurrentMap<String, Fault> armed = new ConcurrentHashMap<>();
  private final List<Call> calls = new CopyOnWriteArrayList<>();

  /** A fault: blocks when {@code block} is set, else fails; {@code times} calls in a row (-1: until reset). */
  private record Fault(When when, Block block, int times) {}

  /** The next call of {@code step} fails with a non-retryable INTERNAL failure naming it. */
  public void failOnce(String step, When when) {
    arm(step, new Fault(when, null, 1));
  }

  /** Every call of {@code step} fails as {@link #failOnce} does, until {@link #reset}. */
  public void failUntilReset(String step, When when) {
    arm(step, new Fault(when, null, -1));
  }

  /** The next call of {@code step} blocks (heartbeating) until the test releases it, then goes on. */
  public Block blockOnce(String step, When when) {
    Block block = new Block(step);
    arm(step, new Fault(when, block, 1));
    return block;
  }

  /** Disarms every fault and forgets the calls. */
  public void reset() {
    armed.values().forEach(f -> {
      if (f.block() != null) {
        f.block().release();
      }
    });
    armed.clear();
    calls.clear();
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  static String message(String step, When when) {
    return "injected at " + step + " " + when.text();
  }

  private void arm(String step, Fault fault) {
    if (armed.putIfAbsent(step, fault) != null) {
      throw new IllegalStateException("a fault is already armed on " + step);
    }
  }

  private void fire(String step, When when, LockSet locks) {
    Fault f = armed.get(step);
    if (f == null || f.when() != when || (f.times() > 0 && !armed.remove(step, f))) {
      return;
    }
    if (f.block() != null) {
      f.block().hold(locks);
      return;
    }
    throw ApplicationFailure.newNonRetryableFailure(message(step, when), "INTERNAL");
  }

  private <T> T call(String step, LockSet locks, Supplier<T> body) {
    long token = locks == null ? 0 : locks.fencingToken();
    try {
      fire(step, When.BEFORE, locks);
    } catch (RuntimeException e) {
      calls.add(new Call(step, token, "injected before it ran"));
      throw e;
    }
    T result;
    try {
      result = body.get();
    } catch (RuntimeException e) {
      calls.add(new Call(step, token, outcome(e)));
      throw e;
    }
    calls.add(new Call(step, token, "ok"));
    fire(step, When.AFTER, locks);
    return result;
  }

  private void run(String step, LockSet locks, Runnable body) {
    call(step, locks, () -> {
      body.run();
      return null;
    });
  }

  private static String outcome(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure af) {
        return af.getType();
      }
      if (t instanceof TemporalFailure || t instanceof ActivityCompletionException) {
        return t.getClass().getSimpleName();
      }
    }
    return e.getClass().getSimpleName();
  }

  /** A step held inside its activity: the test waits for it to be reached, acts, and releases it. */
  public static final class Block {
    private final String step;
    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile LockSet locks;

    private Block(String step) {
      this.step = step;
    }

    public boolean reached() {
      return reached.getCount() == 0;
    }

    public void release() {
      released.countDown();
    }

    /** The locks the blocked call was given (null for a read-only step). */
    public LockSet locks() {
      return locks;
    }

    /**
     * Heartbeats while held, as a real step waiting on MySQL does, so an activity does not time out
     * (a local one cannot heartbeat, and needs not); a cancellation is not acted on: once released
     * the real step runs, and must itself stop (fence, lock check, cancellation) where it has to.
     */
    private void hold(LockSet given) {
      locks = given;
      reached.countDown();
      long deadline = System.nanoTime() + MAX_BLOCK.toNanos();
      try {
        while (!released.await(500, TimeUnit.MILLISECONDS)) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(step + " was blocked for " + MAX_BLOCK + " and never released");
          }
          try {
            Activity.getExecutionContext().heartbeat(null);
          } catch (ActivityCompletionException e) {
            // cancelled: noted by Temporal; the step runs on once released, as a real one would
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while " + step + " was blocked", e);
      }
    }
  }

  @Override
  public SwitchActivities apply(SwitchActivities real) {
    return new Faulty(real);
  }

  /**
   * The real cleanup activities (Complete's and Cancel's steps), each call going through the armed
   * faults under its method's name; a proxy, so every method of the interface is covered.
   */
  CleanupActivities cleanup(CleanupActivities real) {
    return (CleanupActivities) Proxy.newProxyInstance(CleanupActivities.class.getClassLoader(),
        new Class<?>[] {CleanupActivities.class}, (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return method.invoke(real, args);
          }
          LockSet locks = args == null ? null : Arrays.stream(args).filter(a -> a instanceof LockSet)
              .map(a -> (LockSet) a).findFirst().orElse(null);
          return call(method.getName(), locks, () -> {
            try {
              return method.invoke(real, args);
            } catch (InvocationTargetException e) {
              if (e.getCause() instanceof RuntimeException r) {
                throw r;
              }
              throw new IllegalStateException(e.getCause());
            } catch (IllegalAccessException e) {
              throw new IllegalStateException(e);
            }
          });
        });
  }

  /** The real activities, each call going through the armed faults. */
  private final class Faulty implements SwitchActivities {
    private final SwitchActivities real;

    Faulty(SwitchActivities real) {
      this.real = real;
    }

    @Override
    public MigrationInfo buildTrafficSwitcher(String targetKeyspace, String workflow) {
      return call("buildTrafficSwitcher", null, () -> real.buildTrafficSwitcher(targetKeyspace, workflow));
    }

    @Override
    public MigrationInfo buildTrafficSwitcherIgnoringSource(String targetKeyspace, String workflow) {
      return call("buildTrafficSwitcherIgnoringSource", null,
          () -> real.buildTrafficSwitcherIgnoringSource(targetKeyspace, workflow));
    }

    @Override
    public WorkflowState getWorkflowState(MigrationInfo info, List<String> cells) {
      return call("getWorkflowState", null, () -> real.getWorkflowState(info, cells));
    }

    @Override
    public String canSwitch(MigrationInfo info, Duration maxReplicationLagAllowed) {
      return call("canSwitch", null, () -> real.canSwitch(info, maxReplicationLagAllowed));
    }

    @Override
    public void checkStreamMigration(MigrationInfo w) {
      run("checkStreamMigration", null, () -> real.checkStreamMigration(w));
    }

    @Override
    public StreamMigration planStreamMigration(MigrationInfo w) {
      return call("planStreamMigration", null, () -> real.planStreamMigration(w));
    }

    @Override
    public StreamMigration stopStreams(MigrationInfo w, StreamMigration plan, Duration timeout, LockSet locks) {
      return call("stopStreams", locks, () -> real.stopStreams(w, plan, timeout, locks));
    }

    @Override
    public void migrateStreams(MigrationInfo w, StreamMigration stopped, LockSet locks) {
      run("migrateStreams", locks, () -> real.migrateStreams(w, stopped, locks));
    }

    @Override
    public void cancelStreamMigration(MigrationInfo w, StreamMigration plan, LockSet locks) {
      run("cancelStreamMigration", locks, () -> real.cancelStreamMigration(w, plan, locks));
    }

    @Override
    public List<String> finalizeStreamMigration(MigrationInfo w, LockSet locks) {
      return call("finalizeStreamMigration", locks, () -> real.finalizeStreamMigration(w, locks));
    }

    @Override
    public void checkSourceShardsDeletion(MigrationInfo info) {
      run("checkSourceShardsDeletion", null, () -> real.checkSourceShardsDeletion(info));
    }

    @Override
    public boolean checkJournals(MigrationInfo info) {
      return call("checkJournals", null, () -> real.checkJournals(info));
    }

    @Override
    public void switchReads(MigrationInfo info, List<TabletType> tabletTypes, List<String> cells, Direction direction,
        LockSet locks) {
      run("switchReads", locks, () -> real.switchReads(info, tabletTypes, cells, direction, locks));
    }

    @Override
    public void mirrorTableTraffic(MigrationInfo info, List<TabletType> tabletTypes, float percent, LockSet locks) {
      run("mirrorTableTraffic", locks, () -> real.mirrorTableTraffic(info, tabletTypes, percent, locks));
    }

    @Override
    public void allowTargetReadsWhileMirrored(MigrationInfo info, LockSet locks) {
      run("allowTargetReadsWhileMirrored", locks, () -> real.allowTargetReadsWhileMirrored(info, locks));
    }

    @Override
    public void prepareSourceWrites(MigrationInfo info, String owner, Duration timeout, LockSet locks) {
      run("prepareSourceWrites", locks, () -> real.prepareSourceWrites(info, owner, timeout, locks));
    }

    @Override
    public void removePreparedSourceBarrier(MigrationInfo info, String owner, LockSet locks) {
      run("removePreparedSourceBarrier", locks, () -> real.removePreparedSourceBarrier(info, owner, locks));
    }

    @Override
    public void stopSourceWrites(MigrationInfo info, Duration drainTimeout, LockSet locks) {
      run("stopSourceWrites", locks, () -> real.stopSourceWrites(info, drainTimeout, locks));
    }

    @Override
    public MigrationInfo planPrimaries(MigrationInfo info) {
      return call("planPrimaries", null, () -> real.planPrimaries(info));
    }

    @Override
    public void allowSourceWrites(MigrationInfo info, LockSet locks) {
      run("allowSourceWrites", locks, () -> real.allowSourceWrites(info, locks));
    }

    @Override
    public Map<String, String> gatherSourcePositions(MigrationInfo info) {
      return call("gatherSourcePositions", null, () -> real.gatherSourcePositions(info));
    }

    @Override
    public Map<String, String> waitForCatchup(MigrationInfo info, Map<String, String> sourcePositions,
        Duration timeout, LockSet locks) {
      return call("waitForCatchup", locks, () -> real.waitForCatchup(info, sourcePositions, timeout, locks));
    }

    @Override
    public void restartStreams(MigrationInfo info, LockSet locks) {
      run("restartStreams", locks, () -> real.restartStreams(info, locks));
    }

    @Override
    public List<SavedStream> readReverseStreams(MigrationInfo info) {
      return call("readReverseStreams", null, () -> real.readReverseStreams(info));
    }

    @Override
    public void createReverseVReplication(MigrationInfo info, Map<String, String> targetPositions, LockSet locks) {
      run("createReverseVReplication", locks, () -> real.createReverseVReplication(info, targetPositions, locks));
    }

    @Override
    public void restoreReverseVReplication(MigrationInfo info, List<SavedStream> saved, LockSet locks) {
      run("restoreReverseVReplication", locks, () -> real.restoreReverseVReplication(info, saved, locks));
    }

    @Override
    public String checkReverseReplication(MigrationInfo info, List<String> cells) {
      return call("checkReverseReplication", null, () -> real.checkReverseReplication(info, cells));
    }

    @Override
    public SequencePlan planSequences(MigrationInfo info, boolean initializeTargetSequences) {
      return call("planSequences", null, () -> real.planSequences(info, initializeTargetSequences));
    }

    @Override
    public List<SequenceValue> readSequenceValues(MigrationInfo info, SequencePlan plan) {
      return call("readSequenceValues", null, () -> real.readSequenceValues(info, plan));
    }

    @Override
    public void resetSequences(MigrationInfo info, LockSet locks) {
      run("resetSequences", locks, () -> real.resetSequences(info, locks));
    }

    @Override
    public Map<String, Long> initializeTargetSequences(MigrationInfo info, SequencePlan plan, LockSet locks) {
      return call("initializeTargetSequences", locks, () -> real.initializeTargetSequences(info, plan, locks));
    }

    @Override
    public void createJournals(MigrationInfo info, Map<String, String> sourcePositions,
        Map<String, String> targetPositions, List<String> sourceWorkflows, LockSet locks) {
      run("createJournals", locks,
          () -> real.createJournals(info, sourcePositions, targetPositions, sourceWorkflows, locks));
    }

    @Override
    public void allowTargetWrites(MigrationInfo info, LockSet locks) {
      run("allowTargetWrites", locks, () -> real.allowTargetWrites(info, locks));
    }

    @Override
    public void changeRouting(MigrationInfo info, LockSet locks) {
      run("changeRouting", locks, () -> real.changeRouting(info, locks));
    }

    @Override
    public void startReverseVReplication(MigrationInfo info, LockSet locks) {
      run("startReverseVReplication", locks, () -> real.startReverseVReplication(info, locks));
    }

    @Override
    public void freezeTargetVReplication(MigrationInfo info, LockSet locks) {
      run("freezeTargetVReplication", locks, () -> real.freezeTargetVReplication(info, locks));
    }

    @Override
    public ShardPositions gatherPositions(MigrationInfo info) {
      return call("gatherPositions", null, () -> real.gatherPositions(info));
    }
  }
}
