package io.pointsman.worker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.spi.FilterReply;
import io.temporal.api.enums.v1.RetryState;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Only the SDK's warning about a workflow ended by a BENIGN failure is kept out of the log. */
class BenignWorkflowFailureFilterTest {
  private final BenignWorkflowFailureFilter filter = new BenignWorkflowFailureFilter();
  private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
  private final Logger workflowFailures = context.getLogger(BenignWorkflowFailureFilter.WORKFLOW_FAILURE_LOGGER);

  private static ApplicationFailure failure(ApplicationErrorCategory category) {
    return ApplicationFailure.newBuilder().setMessage("workflow nosuchflow not found in keyspace customer")
        .setType("NOT_FOUND").setNonRetryable(true).setCategory(category).build();
  }

  private static ActivityFailure fromActivity(Throwable cause) {
    return new ActivityFailure("Activity task failed", 5, 6, "showWorkflow", "a1",
        RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE, "worker", cause);
  }

  private FilterReply warn(Logger logger, Throwable failure) {
    // as the SDK logs it: the failure is the last argument of a parameterized message
    return filter.decide(null, logger, Level.WARN, "Workflow execution failure WorkflowId='{}', RunId={}",
        new Object[] {"ShowWorkflow-customer.nosuchflow", "run", failure}, null);
  }

  @Test
  void aWorkflowEndedByABenignFailureOfItsActivityIsNotWarnedAbout() {
    assertThat(warn(workflowFailures, fromActivity(failure(ApplicationErrorCategory.BENIGN))))
        .isEqualTo(FilterReply.DENY);
    assertThat(warn(workflowFailures, failure(ApplicationErrorCategory.BENIGN))).isEqualTo(FilterReply.DENY);
  }

  @Test
  void everyOtherWorkflowFailureAndEveryOtherLineIsLeftAlone() {
    assertThat(warn(workflowFailures, fromActivity(failure(ApplicationErrorCategory.UNSPECIFIED))))
        .isEqualTo(FilterReply.NEUTRAL);
    assertThat(warn(workflowFailures, fromActivity(new IllegalStateException("a bug"))))
        .isEqualTo(FilterReply.NEUTRAL);
    assertThat(warn(workflowFailures, null)).isEqualTo(FilterReply.NEUTRAL);
    assertThat(warn(context.getLogger("io.pointsman.workflows.TrafficSwitch"),
        fromActivity(failure(ApplicationErrorCategory.BENIGN)))).isEqualTo(FilterReply.NEUTRAL);
    assertThat(filter.decide(null, workflowFailures, Level.ERROR, "Workflow execution failure",
        new Object[] {fromActivity(failure(ApplicationErrorCategory.BENIGN))}, null)).isEqualTo(FilterReply.NEUTRAL);
  }

  @Test
  void installingTwiceAddsOneFilter() {
    BenignWorkflowFailureFilter.install();
    BenignWorkflowFailureFilter.install();
    assertThat(context.getTurboFilterList()).filteredOn(BenignWorkflowFailureFilter.class::isInstance).hasSize(1);
  }
}
