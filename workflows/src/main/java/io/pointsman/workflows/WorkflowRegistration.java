package io.pointsman.workflows;

import io.temporal.common.converter.DataConverterException;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkflowImplementationOptions;

/** Registers pointsman's workflows on a worker, the same way in the worker, dev mode and tests. */
public final class WorkflowRegistration {
  private WorkflowRegistration() {}

  /**
   * Input that cannot be decoded (unknown or malformed field, JSON that does not parse) fails the
   * workflow at once with the field or the parse error named, instead of failing workflow tasks
   * forever (Temporal's default for exceptions that are not TemporalFailures).
   */
  public static WorkflowImplementationOptions options() {
    return WorkflowImplementationOptions.newBuilder()
        .setFailWorkflowExceptionTypes(DataConverterException.class)
        .build();
  }

  /**
   * The interceptors every worker factory that runs pointsman's workflows must have:
   * {@link StepSummaries}, the readable activity summaries of the UI's event history.
   */
  public static WorkerInterceptor[] interceptors() {
    return new WorkerInterceptor[] {new StepSummaries()};
  }

  public static void registerWorkflows(Worker worker) {
    worker.registerWorkflowImplementationTypes(options(), SwitchTrafficWorkflowImpl.class,
        ReverseTrafficWorkflowImpl.class, CompleteMigrationWorkflowImpl.class, CancelMigrationWorkflowImpl.class,
        ValidateTopologyWorkflowImpl.class, ShowWorkflowImpl.class, MirrorTrafficWorkflowImpl.class);
  }
}
