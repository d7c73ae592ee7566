package io.pointsman.worker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.ChildWorkflowFailure;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Keeps the SDK's warning about a failed workflow out of the worker's log when what failed it is a
 * BENIGN failure: an outcome the caller plans for (a Show or Status of a workflow that is not there),
 * which the SDK already logs at debug level when an activity fails so, but not when that failure then
 * ends the workflow. The failure itself is unchanged: it is in the history, the UI and the client's
 * answer. Every other workflow failure is logged as before.
 */
public final class BenignWorkflowFailureFilter extends TurboFilter {
  /** The SDK's logger of workflow failures (a warning with the failure's stack trace). */
  static final String WORKFLOW_FAILURE_LOGGER = "io.temporal.internal.sync.WorkflowExecutionHandler";

  /** Adds the filter to logback's context once; does nothing when logging is not logback. */
  public static void install() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      synchronized (context) {
        if (context.getTurboFilterList().stream().noneMatch(BenignWorkflowFailureFilter.class::isInstance)) {
          BenignWorkflowFailureFilter filter = new BenignWorkflowFailureFilter();
          filter.setContext(context);
          filter.start();
          context.addTurboFilter(filter);
        }
      }
    }
  }

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (level != Level.WARN || logger == null || !WORKFLOW_FAILURE_LOGGER.equals(logger.getName())) {
      return FilterReply.NEUTRAL;
    }
    Throwable failure = t != null ? t
        : params != null && params.length > 0 && params[params.length - 1] instanceof Throwable last ? last : null;
    return isBenign(failure) ? FilterReply.DENY : FilterReply.NEUTRAL;
  }

  /**
   * Whether the failure, once the activity or child workflow that carried it is looked through, is
   * an ApplicationFailure of the category BENIGN.
   */
  static boolean isBenign(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof ActivityFailure || t instanceof ChildWorkflowFailure) && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof ApplicationFailure af && af.getCategory() == ApplicationErrorCategory.BENIGN;
  }
}
