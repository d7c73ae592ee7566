package io.pointsman.workflows;

import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.workflow.WorkflowLocal;

/**
 * Gives every activity a workflow schedules a summary a person can read in the Temporal UI's event
 * history and timeline: {@code "stopSourceWrites: deny writes on commerce [0]"}, the step's name and
 * detail as {@link Steps} records them in the progress. The activity stubs are made once per
 * workflow, before any step is known, so the summary is set here, on the way out, from the step
 * {@link Steps#run} has just begun; an activity outside a step (holding and releasing the locks) is
 * summarised by its name. A summary is user metadata of the schedule command: it is not compared on
 * replay (HistoryReplayTest replays histories recorded without any).
 */
public final class StepSummaries extends WorkerInterceptorBase {
  /** The step whose activity is about to be scheduled; workflow-scoped, so deterministic. */
  private static final WorkflowLocal<String> CURRENT = WorkflowLocal.withInitial(() -> null);
  /** The UI shows a short line; the progress query has the whole detail. */
  static final int MAX_LENGTH = 200;

  /** Called by {@link Steps#run} before it starts the step's activity. */
  static void begin(String name, String detail) {
    CURRENT.set(clip(detail == null || detail.isEmpty() ? name : name + ": " + detail));
  }

  static void end() {
    CURRENT.set(null);
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public void init(WorkflowOutboundCallsInterceptor outbound) {
        super.init(new Outbound(outbound));
      }
    };
  }

  private static String summary(String activityName) {
    String s = CURRENT.get();
    return s != null ? s : activityName;
  }

  private static String clip(String s) {
    return s.length() > MAX_LENGTH ? s.substring(0, MAX_LENGTH - 3) + "..." : s;
  }

  private static final class Outbound extends WorkflowOutboundCallsInterceptorBase {
    Outbound(WorkflowOutboundCallsInterceptor next) {
      super(next);
    }

    @Override
    public <R> ActivityOutput<R> executeActivity(ActivityInput<R> in) {
      if (in.getOptions().getSummary() != null) {
        return super.executeActivity(in);
      }
      return super.executeActivity(new ActivityInput<>(in.getActivityName(), in.getResultClass(), in.getResultType(),
          in.getArgs(), in.getOptions().toBuilder().setSummary(summary(in.getActivityName())).build(), in.getHeader()));
    }

    @Override
    public <R> LocalActivityOutput<R> executeLocalActivity(LocalActivityInput<R> in) {
      if (in.getOptions().getSummary() != null) {
        return super.executeLocalActivity(in);
      }
      return super.executeLocalActivity(new LocalActivityInput<>(in.getActivityName(), in.getResultClass(),
          in.getResultType(), in.getArgs(), in.getOptions().toBuilder().setSummary(summary(in.getActivityName())).build(),
          in.getHeader()));
    }
  }
}
