package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.MirrorTrafficWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.sandbox.cluster.SandboxLayout;
import io.temporal.api.common.v1.Payload;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.RawValue;
import io.temporal.failure.ApplicationFailure;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the replay corpus of {@code workflows/src/test/resources/histories}: the happy path of
 * every workflow (MirrorTraffic's too), a dry run, a failed step and its compensation, a lock lost behind the
 * workflow's back, cancellation before and after the journal, and rejected input — each run for
 * real on a sandbox and fetched as Temporal's JSON history. Not part of the build; rerun it after
 * a deliberate change of the workflows' commands, into a directory of its own, and add the files
 * as {@code <scenario>@<commit>.json} next to the old ones (old runs may still be in flight):
 * <pre>mvn -pl e2e -am verify -Dtest=HistoryRecorder -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dpointsman.recordHistories=true -Dpointsman.historiesDir=/tmp/histories</pre>
 * ({@code -am}: the workflows must be the ones of this tree, not whatever the local repository holds).
 */
@EnabledIfSystemProperty(named = "pointsman.recordHistories", matches = "true")
@Timeout(1800)
class HistoryRecorder {
  private static final Logger log = LoggerFactory.getLogger(HistoryRecorder.class);
  private static final String WF = "commerce2customer";
  private static final String TARGET = "customer";
  private static final Duration RESULT_TIMEOUT = Duration.ofMinutes(5);

  private final Path out = Path.of(System.getProperty("pointsman.historiesDir",
      Path.of(System.getProperty("user.dir")).resolveSibling("workflows").resolve("src/test/resources/histories")
          .toString()));

  @Test
  void recordsTheCorpus() throws Exception {
    Files.createDirectories(out);
    Faults faults = new Faults();
    try (SwitchWorld world = SwitchWorld.start(true, faults)) {
      world.createMoveTables();
      SwitchTrafficRequest request = SwitchTrafficRequest.of(WF, TARGET);

      run(world, "switch-traffic-dry-run", SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC,
          w -> w.switchTraffic(request.withDryRun(true)));
      rejectedInput(world);

      faults.failOnce("createReverseVReplication");
      run(world, "switch-traffic-step-failed-compensated", SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC,
          w -> w.switchTraffic(request));
      awaitStreamsRunning(world);

      cancelled(world, faults, request, "waitForCatchup", "switch-traffic-cancelled-before-journal");
      awaitStreamsRunning(world);
      cancelled(world, faults, request, "allowTargetWrites", "switch-traffic-cancelled-after-journal");

      run(world, "reverse-traffic", ReverseTrafficWorkflow.class, Pointsman.REVERSE_TRAFFIC,
          w -> w.reverseTraffic(request));
      run(world, "switch-traffic", SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC,
          w -> w.switchTraffic(request));
      run(world, "complete", CompleteMigrationWorkflow.class, Pointsman.COMPLETE_MIGRATION,
          w -> w.complete(CompleteRequest.of(WF, TARGET)));
    }
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      run(world, "mirror-traffic", MirrorTrafficWorkflow.class, Pointsman.MIRROR_TRAFFIC,
          w -> w.mirrorTraffic(MirrorTrafficRequest.of(WF, TARGET).withPercent(10)));
      run(world, "cancel", CancelMigrationWorkflow.class, Pointsman.CANCEL_MIGRATION,
          w -> w.cancel(CancelRequest.of(WF, TARGET)));
    }
    // a world of its own: where the loss is noticed (before or after the journal) decides whether
    // the switch is rolled back or finished, so what follows could not count on either
    Faults lockFaults = new Faults();
    try (SwitchWorld world = SwitchWorld.start(true, lockFaults)) {
      world.createMoveTables();
      lockLostAndReacquired(world, lockFaults, SwitchTrafficRequest.of(WF, TARGET));
      log.info("after the lock loss: {}", world.validator.validate(TARGET, WF).describe());
    }
    Faults queueFaults = new Faults();
    try (SwitchWorld world = SwitchWorld.start(true, queueFaults)) {
      world.createMoveTables();
      queuedBehindASwitch(world, queueFaults);
    }
    // a Reshard's switch: stream migration planned (nothing to migrate) and finalized from the journal
    try (SwitchWorld world = SwitchWorld.start(false, UnaryOperator.identity())) {
      world.createReshard();
      run(world, "reshard-switch-traffic", SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC,
          w -> w.switchTraffic(SwitchTrafficRequest.of(SandboxLayout.RESHARD_WORKFLOW, TARGET)));
    }
    // a Migrate's Complete: finalized on the target alone (marker finalize-migrate-workflows)
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      TargetRows.set(world, TARGET, WF, "workflow_type = 3");
      run(world, "complete-migrate", CompleteMigrationWorkflow.class, Pointsman.COMPLETE_MIGRATION,
          w -> w.complete(CompleteRequest.of(WF, TARGET)));
    }
  }

  /**
   * Complete and Cancel with ignoreSourceKeyspace (buildTrafficSwitcherIgnoringSource, the target
   * keyspace locked alone, Cancel's journal check skipped). Recorded on its own:
   * {@code -Dtest=HistoryRecorder#recordsTheRunsThatIgnoreTheSourceKeyspace}; the source keyspace
   * is still there, which the commands do not depend on.
   */
  @Test
  void recordsTheRunsThatIgnoreTheSourceKeyspace() throws Exception {
    Files.createDirectories(out);
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      run(world, "cancel-ignoring-source", CancelMigrationWorkflow.class, Pointsman.CANCEL_MIGRATION,
          w -> w.cancel(CancelRequest.of(WF, TARGET).ignoringSourceKeyspace()));
      world.createMoveTables();
      // the switch Complete needs, not recorded: switch-traffic records its like
      world.client().newWorkflowStub(SwitchTrafficWorkflow.class,
          options(Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, TARGET, WF) + "-before-ignoring-source"))
          .switchTraffic(SwitchTrafficRequest.of(WF, TARGET));
      run(world, "complete-ignoring-source", CompleteMigrationWorkflow.class, Pointsman.COMPLETE_MIGRATION,
          w -> w.complete(CompleteRequest.of(WF, TARGET).ignoringSourceKeyspace()));
    }
  }

  /**
   * The paths that decide again under the locks (markers plan-under-locks, check-under-locks):
   * a second SwitchTraffic and a Cancel read the state while a switch holds the locks, queue, and
   * find it switched once they hold them; the switch is a no-op, the Cancel is refused.
   */
  private void queuedBehindASwitch(SwitchWorld world, Faults faults) throws Exception {
    SwitchTrafficRequest request = SwitchTrafficRequest.of(WF, TARGET);
    String base = Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, TARGET, WF);
    Faults.Block block = faults.blockOnce("canSwitch");
    WorkflowStub holder = start(world, base + "-holder", Pointsman.SWITCH_TRAFFIC, request);
    assertThat(block.entered.await(3, TimeUnit.MINUTES)).isTrue();
    String laterId = base + "-replanned";
    WorkflowStub later = start(world, laterId, Pointsman.SWITCH_TRAFFIC, request);
    String cancelId = Pointsman.workflowId(Pointsman.CANCEL_MIGRATION, TARGET, WF) + "-refused";
    WorkflowStub cancel = start(world, cancelId, Pointsman.CANCEL_MIGRATION, CancelRequest.of(WF, TARGET));
    ByteSequence named = ByteSequence.from(TopoPaths.locksPrefix(world.paths.namedLockDir(
        Pointsman.namedLock(TARGET, WF))), StandardCharsets.UTF_8);
    // both have read the state and queued behind the holder's key on the workflow's named lock
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> world.etcd.getKVClient()
        .get(named, GetOption.builder().isPrefix(true).build()).get(30, TimeUnit.SECONDS).getKvs().size() == 3);
    block.release.countDown();
    outcome(holder);
    outcome(later);
    outcome(cancel);
    save(world, laterId, "switch-traffic-replanned-under-locks");
    save(world, cancelId, "cancel-refused-under-locks");
  }

  private void rejectedInput(SwitchWorld world) throws Exception {
    String id = "SwitchTraffic-rejected-input";
    WorkflowStub stub = world.client().newUntypedWorkflowStub(Pointsman.SWITCH_TRAFFIC, options(id));
    // what the Temporal UI sends: one json/plain payload, here with a misspelled field
    stub.start(new RawValue(Payload.newBuilder()
        .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFromUtf8("{\"workflow\":\"" + WF + "\",\"targetKeyspace\":\"" + TARGET
            + "\",\"dryrun\":true}"))
        .build()));
    try {
      stub.getResult(RESULT_TIMEOUT.toSeconds(), TimeUnit.SECONDS, ActionResult.class);
      throw new AssertionError("misspelled field accepted");
    } catch (io.temporal.client.WorkflowFailedException e) {
      log.info("rejected as expected: {}", e.getCause().getMessage());
    }
    save(world, id, "switch-traffic-rejected-input");
  }

  private void lockLostAndReacquired(SwitchWorld world, Faults faults, SwitchTrafficRequest request)
      throws Exception {
    String id = Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, TARGET, WF) + "-lock-lost";
    Faults.Block block = faults.blockOnce("waitForCatchup");
    WorkflowStub stub = start(world, id, Pointsman.SWITCH_TRAFFIC, request);
    assertThat(block.entered.await(3, TimeUnit.MINUTES)).isTrue();
    String dir = world.paths.namedLockDir(Pointsman.namedLock(TARGET, WF));
    for (KeyValue kv : world.etcd.getKVClient().get(ByteSequence.from(TopoPaths.locksPrefix(dir),
        StandardCharsets.UTF_8), GetOption.builder().isPrefix(true).build()).get(30, TimeUnit.SECONDS).getKvs()) {
      log.info("revoking lease {} of {} behind the workflow's back", kv.getLease(),
          kv.getKey().toString(StandardCharsets.UTF_8));
      world.etcd.getLeaseClient().revoke(kv.getLease()).get(30, TimeUnit.SECONDS);
    }
    block.release.countDown();
    outcome(stub);
    save(world, id, "switch-traffic-lock-lost-reacquired");
  }

  private void cancelled(SwitchWorld world, Faults faults, SwitchTrafficRequest request, String step, String name)
      throws Exception {
    String id = Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, TARGET, WF) + "-" + name;
    Faults.Block block = faults.blockOnce(step);
    WorkflowStub stub = start(world, id, Pointsman.SWITCH_TRAFFIC, request);
    assertThat(block.entered.await(3, TimeUnit.MINUTES)).isTrue();
    stub.cancel();
    // A local step is not told of a cancellation: the workflow sees it at its next workflow task,
    // and a chain released before that would run on to its end.
    world.awaitCancellationSeen(stub);
    block.release.countDown();
    outcome(stub);
    save(world, id, name);
  }

  private static WorkflowStub start(SwitchWorld world, String id, String type, Object input) {
    WorkflowStub stub = world.client().newUntypedWorkflowStub(type, options(id));
    stub.start(input);
    return stub;
  }

  private static void outcome(WorkflowStub stub) {
    try {
      ActionResult r = stub.getResult(RESULT_TIMEOUT.toSeconds(), TimeUnit.SECONDS, ActionResult.class);
      log.info("{} ended: {}", stub.getExecution().getWorkflowId(), r.summary());
    } catch (Exception e) {
      log.info("{} failed: {}", stub.getExecution().getWorkflowId(), String.valueOf(e.getCause() == null ? e : e.getCause()));
    }
  }

  private interface Action<T> {
    ActionResult run(T workflow);
  }

  private <T> void run(SwitchWorld world, String name, Class<T> type, String action, Action<T> body)
      throws Exception {
    String id = Pointsman.workflowId(action, TARGET, WF) + "-" + name;
    try {
      ActionResult r = body.run(world.client().newWorkflowStub(type, options(id)));
      log.info("{}: {}", name, r.summary());
    } catch (io.temporal.client.WorkflowFailedException e) {
      log.info("{} failed: {}", name, String.valueOf(e.getCause()));
    }
    save(world, id, name);
  }

  private static WorkflowOptions options(String id) {
    return WorkflowOptions.newBuilder().setTaskQueue(Pointsman.TASK_QUEUE).setWorkflowId(id)
        .setWorkflowExecutionTimeout(Duration.ofMinutes(10)).build();
  }

  private void save(SwitchWorld world, String workflowId, String name) throws Exception {
    WorkflowClient client = world.client();
    String json = client.fetchHistory(workflowId).toJson(true);
    Path file = out.resolve(name + ".json");
    Files.writeString(file, json + "\n");
    log.info("recorded {} ({} KB)", file, json.length() / 1024);
    assertThat(json.length()).as(name + " size").isLessThan(200 * 1024);
  }

  /**
   * Arms faults on the real switch activities: a step fails once before it runs, or blocks once
   * on a latch until the recorder released it (bounded, so nothing hangs).
   */
  static final class Faults implements UnaryOperator<SwitchActivities> {
    record Block(String step, CountDownLatch entered, CountDownLatch release) {}

    private volatile String failStep;
    private volatile Block block;

    void failOnce(String step) {
      failStep = step;
    }

    Block blockOnce(String step) {
      Block b = new Block(step, new CountDownLatch(1), new CountDownLatch(1));
      block = b;
      return b;
    }

    @Override
    public SwitchActivities apply(SwitchActivities real) {
      return (SwitchActivities) Proxy.newProxyInstance(SwitchActivities.class.getClassLoader(),
          new Class<?>[] {SwitchActivities.class}, (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
              return method.invoke(real, args);
            }
            String name = method.getName();
            if (name.equals(failStep)) {
              failStep = null;
              throw ApplicationFailure.newNonRetryableFailure("injected failure in " + name, "InjectedFault");
            }
            Block b = block;
            if (b != null && b.step().equals(name)) {
              block = null;
              b.entered().countDown();
              if (!b.release().await(3, TimeUnit.MINUTES)) {
                log.warn("{} was never released; going on", name);
              }
            }
            try {
              return method.invoke(real, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
    }
  }

  /** After a rollback the compensation restarts the streams; the next run needs them running. */
  private static void awaitStreamsRunning(SwitchWorld world) {
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
      int found = 0;
      for (String shard : world.store().listShards(TARGET)) {
        for (Stream st : world.services.streams().read(world.services.primaries().resolve(TARGET, shard), WF)) {
          found++;
          if (st.state() != StreamState.RUNNING || st.copyPending()) {
            return false;
          }
        }
      }
      return found > 0;
    });
  }
}
