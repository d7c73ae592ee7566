package io.pointsman.bench;

import io.pointsman.api.model.Direction;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ProgressQuery;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A write switch as users run it: the {@code SwitchTraffic} or {@code ReverseTraffic} workflow with
 * tablet types {@code PRIMARY}, on the pointsman worker of dev mode, started and awaited like the
 * CLI does. Its steps come from the workflow's {@code progress} query (workflow time, in ms).
 */
final class TemporalSwitch {
  private final WorkflowClient client;

  TemporalSwitch(WorkflowClient client) {
    this.client = client;
  }

  SwitchRun switchWrites(String targetKeyspace, String workflow, Direction direction, Duration lockTtl) {
    return switchWrites(targetKeyspace, workflow, direction, lockTtl, () -> {});
  }

  /**
   * The switch, calling {@code ended} as soon as its result is in, before the progress query reads
   * its steps (a query of a closed workflow replays its whole history in the worker).
   */
  SwitchRun switchWrites(String targetKeyspace, String workflow, Direction direction, Duration lockTtl,
      Runnable ended) {
    SwitchTrafficRequest request = SwitchTrafficRequest.of(workflow, targetKeyspace)
        .withTabletTypes(List.of(TabletType.PRIMARY)).withLockTtl(lockTtl);
    boolean forward = direction == Direction.FORWARD;
    String action = forward ? Pointsman.SWITCH_TRAFFIC : Pointsman.REVERSE_TRAFFIC;
    String id = Pointsman.workflowId(action, targetKeyspace, workflow);
    WorkflowOptions options = WorkflowOptions.newBuilder().setTaskQueue(Pointsman.TASK_QUEUE).setWorkflowId(id)
        .setWorkflowExecutionTimeout(Duration.ofMinutes(10)).build();
    ProgressQuery query;
    Runnable call;
    if (forward) {
      SwitchTrafficWorkflow wf = client.newWorkflowStub(SwitchTrafficWorkflow.class, options);
      query = wf;
      call = () -> wf.switchTraffic(request);
    } else {
      ReverseTrafficWorkflow wf = client.newWorkflowStub(ReverseTrafficWorkflow.class, options);
      query = wf;
      call = () -> wf.reverseTraffic(request);
    }
    long start = System.nanoTime();
    long startMillis = System.currentTimeMillis();
    call.run();
    long end = System.nanoTime();
    ended.run();
    return new SwitchRun(Report.TEMPORAL, direction, start, startMillis, end,
        steps(query.progress(), start, startMillis), id);
  }

  /** The workflow's steps on this JVM's monotonic clock, anchored where the start was sent. */
  private static List<StepTiming> steps(Progress progress, long startNanos, long startMillis) {
    List<StepTiming> out = new ArrayList<>();
    for (StepProgress s : progress.steps()) {
      if (s.startedAt() == null || s.finishedAt() == null) {
        continue;
      }
      out.add(new StepTiming(s.name(), startNanos + (s.startedAt().toEpochMilli() - startMillis) * 1_000_000,
          startNanos + (s.finishedAt().toEpochMilli() - startMillis) * 1_000_000));
    }
    return out;
  }
}
