package io.pointsman.engine.testing;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/**
 * What one logger writes while a test watches it, for the few facts only a log tells from outside,
 * such as a lock renewal that failed inside the worker while etcd was away.
 */
public final class LogWatch implements AutoCloseable {
  private final Logger logger;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private LogWatch(Logger logger) {
    this.logger = logger;
    appender.setContext(logger.getLoggerContext());
    appender.start();
    logger.addAppender(appender);
  }

  /** Starts watching the logger of that name (a class name, for a class the test cannot see). */
  public static LogWatch of(String loggerName) {
    return new LogWatch((Logger) LoggerFactory.getLogger(loggerName));
  }

  /** How many messages so far contain {@code fragment}. */
  public int count(String fragment) {
    synchronized (appender) { // AppenderBase appends under this monitor
      return (int) appender.list.stream().filter(e -> e.getFormattedMessage().contains(fragment)).count();
    }
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    appender.stop();
  }
}
