package io.pointsman.bench;

import com.google.protobuf.util.Timestamps;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Where one write switch through Temporal spent its time, split by its history's workflow tasks
 * (the server's times) and its steps (the progress query's). Inside the tasks: the steps themselves,
 * and the rest of the tasks' time, which is the SDK's: handing each local activity to its thread
 * and its result back to the workflow, running the workflow code, answering the task. Between the
 * tasks: the round trips through the server that end one task and start the next (holdLocks started
 * and reporting that it renews the leases; holdLocks's end after the release). Start and end: from
 * the caller's start request to the first task, and from the last task to the result reaching the
 * caller. The four add up to the switch's total as the caller saw it.
 *
 * <p>A step's duration is its local activity's own: inside a task the workflow clock moves on by
 * each local activity's run time, not by the hand-offs around it (seen with an activity interceptor
 * timing each run on the worker: the steps' stamps matched the runs, and fell behind the wall clock
 * by the hand-offs), which therefore count as the tasks' rest. A step run as an activity of its
 * own (acquireLocks, when the locks were not free at once) spans tasks: its time then counts as a
 * step's, and the tasks' rest is that much smaller, down to below zero; the bench's switches do not
 * wait for locks.
 *
 * @param tasks the workflow tasks that completed (or failed, or timed out) in the run
 * @param steps the steps' durations, summed
 * @param inTasks the tasks' time outside the steps
 * @param betweenTasks from each task's end to the next one's start
 * @param startAndEnd before the first task and after the last, as the caller saw them
 */
record TemporalTimes(int tasks, Duration steps, Duration inTasks, Duration betweenTasks, Duration startAndEnd) {

  /**
   * @param events the run's history
   * @param run the switch, whose start and end the caller took on its clocks
   */
  static TemporalTimes of(List<HistoryEvent> events, SwitchRun run) {
    List<long[]> spans = taskSpans(events);
    if (spans.isEmpty()) {
      throw new IllegalArgumentException("the history of " + run.workflowId() + " has no finished workflow task");
    }
    long taskMillis = 0;
    long betweenMillis = 0;
    for (int i = 0; i < spans.size(); i++) {
      taskMillis += spans.get(i)[1] - spans.get(i)[0];
      if (i > 0) {
        betweenMillis += spans.get(i)[0] - spans.get(i - 1)[1];
      }
    }
    long stepNanos = run.steps().stream().mapToLong(s -> s.endNanos() - s.startNanos()).sum();
    long startMillis = run.startEpochMillis();
    long endMillis = startMillis + run.took().toMillis();
    long outside = (spans.get(0)[0] - startMillis) + (endMillis - spans.get(spans.size() - 1)[1]);
    return new TemporalTimes(spans.size(), Duration.ofNanos(stepNanos),
        Duration.ofMillis(taskMillis).minusNanos(stepNanos), Duration.ofMillis(betweenMillis),
        Duration.ofMillis(Math.max(0, outside)));
  }

  /** Each task's start and end in epoch milliseconds, in history order. */
  private static List<long[]> taskSpans(List<HistoryEvent> events) {
    List<long[]> spans = new ArrayList<>();
    long started = -1;
    for (HistoryEvent e : events) {
      EventType type = e.getEventType();
      if (type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
        started = millis(e);
      } else if (started >= 0 && (type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
          || type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
          || type == EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT)) {
        spans.add(new long[] {started, millis(e)});
        started = -1;
      }
    }
    return spans;
  }

  private static long millis(HistoryEvent e) {
    return Timestamps.toMillis(e.getEventTime());
  }
}
