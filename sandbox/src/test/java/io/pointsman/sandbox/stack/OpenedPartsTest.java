package io.pointsman.sandbox.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The closing order every world relies on, without servers: newest first, all tried, failures
 * reported, and nothing left running that came after the close.
 */
class OpenedPartsTest {
  private final List<String> closed = new ArrayList<>();

  @Test
  void closesNewestFirstTriesEveryPartAndReportsWhatFailed() {
    OpenedParts parts = new OpenedParts();
    parts.push(() -> closed.add("data folder"));
    parts.push(() -> {
      closed.add("sandbox");
      throw new IOException("sandbox broke");
    });
    parts.push(() -> {
      closed.add("stream runner");
      throw new IllegalStateException("runner broke");
    });
    parts.push(() -> closed.add("worker"));

    assertThatThrownBy(() -> parts.closeAll("the test stack"))
        .isInstanceOfSatisfying(PointsmanException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
          assertThat(e.getCause()).hasMessage("runner broke");
          assertThat(e.getSuppressed()).singleElement().satisfies(s -> assertThat(s).hasMessage("sandbox broke"));
        })
        .hasMessageContaining("stopping the test stack failed");
    assertThat(closed).containsExactly("worker", "stream runner", "sandbox", "data folder");
  }

  @Test
  void closingAgainClosesNothingTwice() {
    OpenedParts parts = new OpenedParts();
    parts.push(() -> closed.add("sandbox"));
    parts.closeAll("the test stack");
    parts.closeAll("the test stack");
    assertThat(closed).containsExactly("sandbox");
  }

  @Test
  void aPartOpenedAfterTheCloseIsClosedAtOnceAndRefused() {
    OpenedParts parts = new OpenedParts();
    parts.closeAll("the test stack");
    assertThatThrownBy(() -> parts.push(() -> closed.add("late router")))
        .isInstanceOf(PointsmanException.class).hasMessageContaining("closed already");
    assertThat(closed).containsExactly("late router");
  }
}
