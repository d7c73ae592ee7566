package io.pointsman.workflows;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.mockingDetails;
import static org.mockito.Mockito.withSettings;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.activities.FailoverToolActivities;
import io.pointsman.api.activities.HoldingStarted;
import io.pointsman.api.activities.LockActivities;
import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.PrimaryTerm;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.model.ShardPositions;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.model.StreamRef;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.MirrorTrafficWorkflow;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.mockito.invocation.Invocation;
import org.mockito.invocation.InvocationOnMock;
import org.mockito.stubbing.Answer;

/**
 * SwitchTraffic, ReverseTraffic, CompleteMigration and CancelMigration on the {@link
 * SharedTestService}, with Mockito mocks of all four activity interfaces of this harness's own,
 * answering for activities and local activities alike. Every mock answers the happy path unless
 * a test overrides one call, by its {@link #label} or its method name; the calls all mocks
 * received, in the order they received them, are {@link #calls}.
 */
final class SwitchHarness implements AutoCloseable {
  private static final AtomicInteger WORKFLOW_IDS = new AtomicInteger();
  private static final ObjectMapper JSON = new ObjectMapper();

  static final MigrationInfo INFO = new MigrationInfo("commerce2customer", "commerce", "customer",
      MigrationType.TABLES, List.of("customer"), List.of("0"), List.of("-80", "80-"),
      List.of(new StreamRef("-80", 1, "0"), new StreamRef("80-", 2, "0")), 42, false);
  /** The reverse workflow, which ReverseTraffic switches writes with. */
  static final MigrationInfo REVERSE_INFO = new MigrationInfo("commerce2customer_reverse", "customer", "commerce",
      MigrationType.TABLES, List.of("customer"), List.of("-80", "80-"), List.of("0"),
      List.of(new StreamRef("0", 3, "-80"), new StreamRef("0", 3, "80-")), 43, false);
  /** What planPrimaries answers: one primary per shard of {@link #INFO} and {@link #REVERSE_INFO}. */
  static final Map<String, PrimaryTerm> PLANNED_PRIMARIES = Map.of(
      "commerce/0", new PrimaryTerm("zone1-0000000100", "2026-12-01T10:00:00Z"),
      "customer/-80", new PrimaryTerm("zone1-0000000200", "2026-12-01T10:00:00Z"),
      "customer/80-", new PrimaryTerm("zone1-0000000300", "2026-12-01T10:00:00Z"));
  static final WorkflowState NOTHING_SWITCHED = new WorkflowState("commerce2customer", "commerce", "customer",
      MigrationType.TABLES, List.of(), List.of("zone1"), List.of(), List.of("zone1"), false);
  static final WorkflowState READS_SWITCHED = new WorkflowState("commerce2customer", "commerce", "customer",
      MigrationType.TABLES, List.of("zone1"), List.of(), List.of("zone1"), List.of(), false);
  static final WorkflowState ALL_SWITCHED = new WorkflowState("commerce2customer", "commerce", "customer",
      MigrationType.TABLES, List.of("zone1"), List.of(), List.of("zone1"), List.of(), true);

  final TestWorkflowEnvironment env = SharedTestService.environment();
  /** This test's workflow: each harness draws its own, so that runs of earlier tests stay apart. */
  final String workflowId = "switch-test-workflow-" + WORKFLOW_IDS.incrementAndGet();
  final SwitchActivities switching;
  final LockActivities locking;
  final FailoverToolActivities failoverTools;
  final CleanupActivities cleanup;
  private final Map<String, Answer<Object>> overrides = new ConcurrentHashMap<>();
  private final AtomicInteger revisions = new AtomicInteger();
  private final Set<LockSet> released = ConcurrentHashMap.newKeySet();
  /** The lock sets a holdLocks is renewing now. */
  private final Set<LockSet> holding = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean loseNext = new AtomicBoolean();
  /** Whether holdLocks reports that it renews the leases, as the real one does. */
  private volatile boolean holdReports = true;
  private volatile CountDownLatch lost = new CountDownLatch(1);
  private Duration workflowTaskTimeout = Duration.ofSeconds(10);
  private volatile boolean closed;

  SwitchHarness() {
    Answer<Object> dispatch = this::answer;
    switching = mock(SwitchActivities.class, withSettings().withoutAnnotations().defaultAnswer(dispatch));
    locking = mock(LockActivities.class, withSettings().withoutAnnotations().defaultAnswer(dispatch));
    cleanup = mock(CleanupActivities.class, withSettings().withoutAnnotations().defaultAnswer(dispatch));
    failoverTools = mock(FailoverToolActivities.class, withSettings().withoutAnnotations().defaultAnswer(dispatch));
    SharedTestService.register(workflowId, this);
  }

  /** A request every test starts from: reads and writes, a short lock TTL so holdLocks heartbeats often. */
  static SwitchTrafficRequest request() {
    return SwitchTrafficRequest.of("commerce2customer", "customer").withLockTtl(Duration.ofSeconds(4));
  }

  /** CompleteMigration's request with every default but the short lock TTL of {@link #request()}. */
  static CompleteRequest completeRequest() {
    return CompleteRequest.fromJson(JSON.valueToTree(Map.of("workflow", "commerce2customer",
        "targetKeyspace", "customer", "lockTtl", "4s")));
  }

  /** CancelMigration's request with every default but the short lock TTL of {@link #request()}. */
  static CancelRequest cancelRequest() {
    return CancelRequest.fromJson(JSON.valueToTree(Map.of("workflow", "commerce2customer",
        "targetKeyspace", "customer", "lockTtl", "4s")));
  }

  /** getWorkflowState answers these in turn, the last one from then on. */
  void states(WorkflowState... answers) {
    AtomicInteger next = new AtomicInteger();
    override("getWorkflowState", inv -> answers[Math.min(next.getAndIncrement(), answers.length - 1)]);
  }

  /** Answers the call of this label (see {@link #label}) or method name with {@code answer} instead. */
  void override(String labelOrMethod, Answer<Object> answer) {
    overrides.put(labelOrMethod, answer);
  }

  /** Fails the call of this label or method name, every time, with a failure no retry repeats. */
  void fail(String labelOrMethod) {
    override(labelOrMethod, inv -> {
      throw ApplicationFailure.newNonRetryableFailure("injected failure of " + label(inv), "INTERNAL");
    });
  }

  /** Fails the first {@code times} calls of this label or method name, as {@link #fail} does; later ones run. */
  void failTimes(String labelOrMethod, int times) {
    java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(times);
    override(labelOrMethod, inv -> {
      if (left.getAndDecrement() > 0) {
        throw ApplicationFailure.newNonRetryableFailure("injected failure of " + label(inv), "INTERNAL");
      }
      return null;
    });
  }

  void workflowTaskTimeout(Duration timeout) {
    workflowTaskTimeout = timeout;
  }

  /** Starts SwitchTraffic and waits for its end: the result, or the exception getResult threw. */
  Object switchTraffic(SwitchTrafficRequest request) {
    return run(SwitchTrafficWorkflow.class, w -> WorkflowClient.start(w::switchTraffic, request));
  }

  /** Starts ReverseTraffic and waits for its end, as {@link #switchTraffic}. */
  Object reverseTraffic(SwitchTrafficRequest request) {
    return run(ReverseTrafficWorkflow.class, w -> WorkflowClient.start(w::reverseTraffic, request));
  }

  /** Starts CompleteMigration and waits for its end, as {@link #switchTraffic}. */
  Object complete(CompleteRequest request) {
    return run(CompleteMigrationWorkflow.class, w -> WorkflowClient.start(w::complete, request));
  }

  /** Starts CancelMigration and waits for its end, as {@link #switchTraffic}. */
  Object cancel(CancelRequest request) {
    return run(CancelMigrationWorkflow.class, w -> WorkflowClient.start(w::cancel, request));
  }

  /** Starts MirrorTraffic and waits for its end, as {@link #switchTraffic}. */
  Object mirrorTraffic(MirrorTrafficRequest request) {
    return run(MirrorTrafficWorkflow.class, w -> WorkflowClient.start(w::mirrorTraffic, request));
  }

  private <W> Object run(Class<W> type, Consumer<W> start) {
    W workflow = env.getWorkflowClient().newWorkflowStub(type,
        WorkflowOptions.newBuilder().setTaskQueue(SharedTestService.TASK_QUEUE).setWorkflowId(workflowId)
            .setWorkflowTaskTimeout(workflowTaskTimeout).setWorkflowExecutionTimeout(Duration.ofMinutes(5)).build());
    start.accept(workflow);
    try {
      return WorkflowStub.fromTyped(workflow).getResult(60, TimeUnit.SECONDS, ActionResult.class);
    } catch (Exception e) {
      return e;
    }
  }

  /** holdLocks holds without reporting it, as one whose signal could not be sent. */
  void silentHold() {
    holdReports = false;
  }

  /** holdLocks fails LOCK_LOST at its next heartbeat; {@link #awaitLost} returns once it threw. */
  void loseLock() {
    lost = new CountDownLatch(1);
    loseNext.set(true);
  }

  void awaitLost() throws InterruptedException {
    if (!lost.await(10, TimeUnit.SECONDS)) {
      throw new AssertionError("holdLocks did not report the loss");
    }
  }

  /**
   * Ends every holdLocks running now without a failure, as a real one ends once it sees its leases
   * revoked (by a pass of this workflow whose task was lost before it was recorded), and waits until
   * the server has their completions: while a workflow task is open they wait there for the next one.
   */
  void endHoldsAsRevoked() throws InterruptedException {
    released.addAll(holding);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (env.getWorkflowClient().getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        DescribeWorkflowExecutionRequest.newBuilder().setNamespace(env.getNamespace())
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId)).build())
        .getPendingActivitiesList().stream().anyMatch(a -> a.getActivityType().getName().equals("HoldLocks"))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("holdLocks still pending on the server");
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  void cancelWorkflow() {
    env.getWorkflowClient().newUntypedWorkflowStub(workflowId).cancel();
  }

  /** Waits, polling the history, until it satisfies {@code condition}. */
  void awaitHistory(Predicate<List<HistoryEvent>> condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.test(history())) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("history never reached the expected state");
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /** This test's workflow's history as the server has it now. */
  List<HistoryEvent> history() {
    return env.getWorkflowClient().fetchHistory(workflowId).getEvents();
  }

  static Predicate<List<HistoryEvent>> has(EventType type) {
    return events -> events.stream().anyMatch(e -> e.getEventType() == type);
  }

  /** Every call the mocks received, in order, each as its {@link #label}. */
  List<String> calls() {
    return invocations().map(SwitchHarness::label).toList();
  }

  /**
   * The calls but holdLocks: it runs beside the steps for as long as the locks are held, so when
   * its activity starts against the local steps after it is up to the worker's threads.
   */
  List<String> steps() {
    return calls().stream().filter(c -> !c.equals("holdLocks")).toList();
  }

  /** The first argument of each call of this label, in call order (the MigrationInfo of a step). */
  List<Object> firstArguments(String label) {
    return invocations().filter(i -> label(i).equals(label)).map(i -> i.getArguments()[0]).toList();
  }

  /** The arguments of each call of this label, in call order. */
  Stream<List<Object>> invocations(String label) {
    return invocations().filter(i -> label(i).equals(label)).map(i -> List.of(i.getArguments()));
  }

  /** The last argument of the first call of this label (the LockSet of a mutating step). */
  Object lastArgument(String label) {
    List<Object> args = invocations(label).findFirst().orElseThrow(() -> new AssertionError("no call of " + label));
    return args.get(args.size() - 1);
  }

  /** The fencing token each call that took locks was given, in call order. */
  List<Long> tokensOf(String label) {
    return invocations().filter(i -> label(i).equals(label))
        .map(i -> ((LockSet) i.getArguments()[i.getArguments().length - 1]).fencingToken()).toList();
  }

  /** The fence epoch of every mutating switch step's LockSet, in call order, with the step's label. */
  List<Map.Entry<String, Long>> stepEpochs() {
    return invocations().filter(i -> i.getMock() == switching && i.getArguments().length > 0
            && i.getArguments()[i.getArguments().length - 1] instanceof LockSet)
        .map(i -> Map.entry(label(i), ((LockSet) i.getArguments()[i.getArguments().length - 1]).epoch())).toList();
  }

  private Stream<Invocation> invocations() {
    List<Invocation> all = new ArrayList<>();
    for (Object m : List.of(switching, locking, cleanup, failoverTools)) {
      all.addAll(mockingDetails(m).getInvocations());
    }
    return all.stream().sorted((a, b) -> Integer.compare(a.getSequenceNumber(), b.getSequenceNumber()));
  }

  /** Every call the mocks received, in order, by method name (tryAcquireLocks apart from acquireLocks). */
  List<String> methods() {
    return invocations().map(i -> i.getMethod().getName()).toList();
  }

  /**
   * A call's name, with the tablet type and direction for switchReads: {@code switchReads REPLICA BACKWARD}.
   * The local tryAcquireLocks is labelled acquireLocks: with the activity it falls back to, it is the
   * one step that takes the locks (as the progress names it); {@link #methods} tells them apart.
   */
  static String label(InvocationOnMock inv) {
    String name = inv.getMethod().getName();
    if (name.equals("tryAcquireLocks")) {
      return "acquireLocks";
    }
    if (name.equals("switchReads")) {
      List<?> types = inv.getArgument(1);
      Direction direction = inv.getArgument(3);
      return name + " " + String.join(",", types.stream().map(String::valueOf).toList()) + " " + direction;
    }
    return name;
  }

  private Object answer(InvocationOnMock inv) throws Throwable {
    // an override of tryAcquireLocks alone comes before one of the step it is labelled with
    Answer<Object> override = inv.getMethod().getName().equals("tryAcquireLocks")
        ? overrides.get("tryAcquireLocks") : null;
    if (override == null) {
      override = overrides.get(label(inv));
    }
    if (override == null) {
      override = overrides.get(inv.getMethod().getName());
    }
    return override != null ? override.answer(inv) : happy(inv);
  }

  /** What the call would answer without overrides: for an override that adds to it (e.g. waits first). */
  Object proceed(InvocationOnMock inv) throws InterruptedException {
    return happy(inv);
  }

  private Object happy(InvocationOnMock inv) throws InterruptedException {
    switch (inv.getMethod().getName()) {
      case "buildTrafficSwitcher":
        return INFO.reverseWorkflow().equals(inv.getArgument(1)) ? REVERSE_INFO : INFO;
      case "getWorkflowState":
        return NOTHING_SWITCHED;
      case "planPrimaries":
        return ((MigrationInfo) inv.getArgument(0)).withPlannedPrimaries(PLANNED_PRIMARIES);
      case "canSwitch":
      case "checkFailoverTools":
      case "checkReverseReplication":
        return "";
      case "checkJournals":
        return false;
      case "gatherSourcePositions":
        return Map.of("0", "MySQL56/a:1-10");
      case "waitForCatchup":
        return Map.of("-80", "MySQL56/b:1-5", "80-", "MySQL56/c:1-5");
      case "readReverseStreams":
      case "readSequenceValues":
        return List.of();
      case "planSequences":
        return SequencePlan.NONE;
      case "initializeTargetSequences":
        return Map.of();
      case "planStreamMigration":
        return StreamMigration.NONE;
      case "stopStreams":
        return inv.getArgument(1); // stopped where they were
      case "finalizeStreamMigration":
        return List.of();
      case "gatherPositions":
        return new ShardPositions(Map.of("0", "MySQL56/a:1-10"), Map.of("-80", "MySQL56/b:1-5"));
      case "acquireLocks":
      case "tryAcquireLocks":
        return acquire(inv.getArgument(0));
      case "holdLocks":
        hold(inv.getArgument(0));
        return null;
      case "releaseLocks":
        released.add(inv.getArgument(0));
        return null;
      default:
        return null; // the mutating steps succeed
    }
  }

  private LockSet acquire(LockRequest request) {
    int revision = revisions.incrementAndGet();
    if (request.namedLock() == null) { // the write window's shard locks: one token per shard, one revision
      return new LockSet(request.shards().stream().map(shard -> new LockToken("/locks/" + shard + "/" + revision,
          "shard " + shard, revision, revision, request.ttl(), Instant.now(), request.maxHold())).toList());
    }
    return LockSet.of(new LockToken("/locks/" + request.namedLock() + "/" + revision, "workflow " + request.namedLock(),
        revision, revision, request.ttl(), Instant.now(), request.maxHold()));
  }

  /**
   * Heartbeats until released or the test ends (returns), cancelled (the heartbeat throws) or told
   * to lose the lock.
   */
  private void hold(LockSet locks) throws InterruptedException {
    ActivityExecutionContext context = Activity.getExecutionContext();
    holding.add(locks); // before the report, after which the workflow's steps may end it
    try {
      // as the real holdLocks reports, once it renews the leases
      if (holdReports) {
        context.getWorkflowClient().newUntypedWorkflowStub(context.getInfo().getWorkflowId(),
            Optional.of(context.getInfo().getRunId()), Optional.empty()).signal(HoldingStarted.SIGNAL,
            locks.fencingToken());
      }
      // the write window's shard locks are released together with the action's other locks
      while (!closed && released.stream().noneMatch(r -> r.locks().containsAll(locks.locks()))) {
        if (loseNext.compareAndSet(true, false)) {
          lost.countDown();
          throw ApplicationFailure.newNonRetryableFailure("lease of " + locks.locks().get(0).key() + " lost",
              "LOCK_LOST");
        }
        context.heartbeat(null);
        TimeUnit.MILLISECONDS.sleep(10);
      }
    } finally {
      holding.remove(locks);
    }
  }

  /** This harness's mock of one activity interface, which the shared worker forwards its workflow's calls to. */
  Object mockOf(Class<?> activityInterface) {
    return Stream.of(switching, locking, cleanup, failoverTools).filter(activityInterface::isInstance).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no mock of " + activityInterface));
  }

  /** Ends this test's part of the shared service: a holdLocks still running stops, later calls are refused. */
  @Override
  public void close() {
    closed = true;
    SharedTestService.release(workflowId);
  }
}
