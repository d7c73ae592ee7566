package io.pointsman.engine.trace;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.pointsman.engine.testing.LogWatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class TimingTraceTest {
  private final Logger logger = (Logger) LoggerFactory.getLogger(TimingTrace.LOGGER);

  @Test
  void aPointIsLoggedWithItsTimeAndDetailOnlyWhenTracing() {
    Level before = logger.getLevel();
    AtomicInteger details = new AtomicInteger();
    try (LogWatch watch = LogWatch.of(TimingTrace.LOGGER)) {
      logger.setLevel(Level.OFF);
      TimingTrace.took("etcd.commit", TimingTrace.start(), () -> "off " + details.incrementAndGet());
      assertThat(details).as("the detail is not built when off").hasValue(0);
      assertThat(watch.count("etcd.commit")).isZero();

      logger.setLevel(Level.TRACE);
      TimingTrace.took("etcd.commit", TimingTrace.start() - 2_500_000, () -> "3 writes " + details.incrementAndGet());
      assertThat(watch.count("etcd.commit")).isEqualTo(1);
      assertThat(watch.count("3 writes 1")).isEqualTo(1);
      assertThat(watch.count(" ms ")).isEqualTo(1);
    } finally {
      logger.setLevel(before);
    }
  }
}
