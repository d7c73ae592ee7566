package io.pointsman.workflows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.workflows.ProgressQuery;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each acquisition tries the locks locally first (Versions.LOCAL_ACQUIRE): free ones cost no
 * activity of their own; held ones are waited for by the acquireLocks activity as before, and the
 * progress says why while it waits.
 */
@Timeout(60)
class LocalAcquireTest {
  private static final String HELD = "could not lock keyspace customer within PT0.25S: still held by "
      + "/vitess/global/keyspaces/customer/locks/7 (vtctldclient on ops-1 as alice since 2026-12-05)";

  @AutoClose
  private final SwitchHarness h = new SwitchHarness();

  @Test
  void freeLocksAreTakenInsideTheWorkflowTaskWithNoAcquireLocksActivity() {
    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    // the action's locks, then the write window's shard locks
    assertThat(h.methods()).filteredOn(m -> m.endsWith("cquireLocks"))
        .containsExactly("tryAcquireLocks", "tryAcquireLocks");
    assertThat(scheduled()).doesNotContain("acquireLocks");
    assertThat(events()).extracting(HistoryEvent::getMarkerRecordedEventAttributes)
        .filteredOn(m -> m.getMarkerName().equals("Version"))
        .anySatisfy(m -> assertThat(m.getDetailsOrThrow("changeId").getPayloads(0).getData().toStringUtf8())
            .contains(Versions.LOCAL_ACQUIRE));
    Progress progress = progress();
    assertThat(progress.steps()).filteredOn(s -> s.name().equals("acquireLocks")).singleElement()
        .satisfies(s -> assertThat(s.status()).isEqualTo(StepStatus.DONE));
    assertThat(progress.steps()).filteredOn(s -> s.name().equals("acquireShardLocks")).singleElement()
        .satisfies(s -> assertThat(s.status()).isEqualTo(StepStatus.DONE));
  }

  @Test
  void locksHeldElsewhereAreWaitedForByTheActivityAndTheProgressSaysWhyMeanwhile() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    h.override("tryAcquireLocks", inv -> {
      if (tries.getAndIncrement() == 0) {
        throw ApplicationFailure.newNonRetryableFailure(HELD, "LOCK_TIMEOUT");
      }
      return h.proceed(inv);
    });
    CountDownLatch released = new CountDownLatch(1);
    h.override("acquireLocks", inv -> {
      // the other holder lets go only once the test has seen the step waiting
      if (!released.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("the test never saw acquireLocks waiting");
      }
      return h.proceed(inv);
    });

    CompletableFuture<Object> run = CompletableFuture.supplyAsync(() -> h.switchTraffic(SwitchHarness.request()));
    StepProgress waiting = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
        .ignoreExceptions() // the query before the run started
        .until(() -> lastStep(), s -> s != null && s.name().equals("acquireLocks")
            && s.status() == StepStatus.RUNNING && s.detail() != null && s.detail().contains("waiting as an activity"));
    released.countDown();

    assertThat(run.get(30, TimeUnit.SECONDS)).isInstanceOf(ActionResult.class);
    assertThat(waiting.detail()).contains("not free at once", "still held by", "vtctldclient on ops-1 as alice");
    // the first acquisition fell back to the activity; the shard locks, free, were taken locally
    assertThat(h.methods()).filteredOn(m -> m.endsWith("cquireLocks"))
        .containsExactly("tryAcquireLocks", "acquireLocks", "tryAcquireLocks");
    assertThat(scheduled()).filteredOn("acquireLocks"::equals).hasSize(1);
    assertThat(progress().steps()).filteredOn(s -> s.name().equals("acquireLocks")).singleElement()
        .satisfies(s -> assertThat(s.status()).isEqualTo(StepStatus.DONE));
  }

  @Test
  void aLockThatCannotBeTakenFailsTheRunWithTheActivitysErrorAsBefore() {
    h.override("tryAcquireLocks", inv -> {
      throw ApplicationFailure.newNonRetryableFailure(HELD, "LOCK_TIMEOUT");
    });
    h.override("acquireLocks", inv -> {
      throw ApplicationFailure.newNonRetryableFailure("could not lock keyspace customer within PT45S", "LOCK_TIMEOUT");
    });

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(result).isInstanceOf(io.temporal.client.WorkflowFailedException.class);
    assertThat((Throwable) result).rootCause().hasMessageContaining("within PT45S");
    assertThat(h.calls()).doesNotContain("switchReads RDONLY FORWARD", "holdLocks");
    assertThat(progress().steps()).filteredOn(s -> s.name().equals("acquireLocks")).singleElement()
        .satisfies(s -> assertThat(s.status()).isEqualTo(StepStatus.FAILED))
        .satisfies(s -> assertThat(s.detail()).contains("within PT45S"));
  }

  private StepProgress lastStep() {
    List<StepProgress> steps = progress().steps();
    return steps.isEmpty() ? null : steps.get(steps.size() - 1);
  }

  private Progress progress() {
    return h.env.getWorkflowClient().newWorkflowStub(ProgressQuery.class, h.workflowId).progress();
  }

  private List<HistoryEvent> events() {
    return h.env.getWorkflowClient().fetchHistory(h.workflowId).getEvents();
  }

  private List<String> scheduled() {
    return events().stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .map(e -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName()).toList();
  }
}
