package io.pointsman.worker;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.client.ActivityCompletionException;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;

/** Times each activity attempt as a pointsman step, named as the progress query names it. */
final class StepMetricsInterceptor extends WorkerInterceptorBase {
  private final PointsmanMetrics metrics;

  StepMetricsInterceptor(PointsmanMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      private ActivityInfo info;

      @Override
      public void init(ActivityExecutionContext context) {
        info = context.getInfo();
        super.init(context);
      }

      @Override
      public ActivityOutput execute(ActivityInput input) {
        String step = stepName(info.getActivityType());
        String run = info.getWorkflowId() + "/" + info.getRunId();
        long start = System.nanoTime();
        metrics.stepStarted(step, run, start);
        String outcome = "failed";
        try {
          ActivityOutput output = super.execute(input);
          outcome = "ok";
          metrics.stepSucceeded(step, run, System.nanoTime());
          return output;
        } catch (ActivityCompletionException e) {
          outcome = "cancelled";
          throw e;
        } finally {
          metrics.stepEnded(step, outcome, System.nanoTime() - start);
        }
      }
    };
  }

  /**
   * Temporal names an activity after its method with the first letter capitalised unless told
   * otherwise; the steps are the methods' names ({@code stopSourceWrites}), as Vitess names them.
   */
  static String stepName(String activityType) {
    if (activityType.isEmpty() || Character.isLowerCase(activityType.charAt(0))) {
      return activityType;
    }
    return Character.toLowerCase(activityType.charAt(0)) + activityType.substring(1);
  }
}
