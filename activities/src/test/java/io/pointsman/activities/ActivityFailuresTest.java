package io.pointsman.activities;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class ActivityFailuresTest {

  @Test
  void aPointsmanFailureLeavesWithItsCodeAsTypeAndItsRetryability() {
    ApplicationFailure held = failureOf(() -> {
      throw new PointsmanException(ErrorCode.LOCK_TIMEOUT, "lock held by someone");
    });
    assertThat(held.getType()).isEqualTo("LOCK_TIMEOUT");
    assertThat(held.isNonRetryable()).isFalse();
    assertThat(held.getOriginalMessage()).isEqualTo("lock held by someone");
    assertThat(held.getCategory()).isEqualTo(ApplicationErrorCategory.UNSPECIFIED);

    ApplicationFailure lost = failureOf(() -> {
      throw new IllegalStateException("wrapped", new PointsmanException(ErrorCode.LOCK_LOST, "gone"));
    });
    assertThat(lost.getType()).isEqualTo("LOCK_LOST");
    assertThat(lost.isNonRetryable()).isTrue();
  }

  @Test
  void connectionTroubleIsUnavailableAndAnythingElseAnInternalErrorNotRetried() {
    assertThat(failureOf(() -> {
      throw new RuntimeException(new SQLTransientConnectionException("pool empty"));
    }).getType()).isEqualTo("UNAVAILABLE");
    assertThat(failureOf(() -> {
      throw new RuntimeException(new SQLException("link failure", "08S01"));
    }).getType()).isEqualTo("UNAVAILABLE");
    ApplicationFailure bug = failureOf(() -> {
      throw new NullPointerException();
    });
    assertThat(bug.getType()).isEqualTo("INTERNAL");
    assertThat(bug.isNonRetryable()).isTrue();
    assertThat(bug.getOriginalMessage()).isEqualTo("NullPointerException");
  }

  @Test
  void temporalsOwnFailuresPassThroughUntouched() {
    CanceledFailure cancelled = new CanceledFailure("cancelled");
    assertThat(catchThrowableOfType(CanceledFailure.class, () -> ActivityFailures.translate(() -> {
      throw cancelled;
    }))).isSameAs(cancelled);
  }

  /** Only the code the caller expects leaves as BENIGN; every other failure of the same body as usual. */
  @Test
  void anExpectedCodeLeavesAsBenignAndNoOtherDoes() {
    ApplicationFailure expected = catchThrowableOfType(ApplicationFailure.class,
        () -> ActivityFailures.translateExpecting(ErrorCode.LOCK_TIMEOUT, () -> {
          throw new PointsmanException(ErrorCode.LOCK_TIMEOUT, "held");
        }));
    assertThat(expected.getCategory()).isEqualTo(ApplicationErrorCategory.BENIGN);
    assertThat(expected.getType()).isEqualTo("LOCK_TIMEOUT");
    assertThat(expected.isNonRetryable()).isFalse();

    ApplicationFailure other = catchThrowableOfType(ApplicationFailure.class,
        () -> ActivityFailures.translateExpecting(ErrorCode.LOCK_TIMEOUT, () -> {
          throw new PointsmanException(ErrorCode.UNAVAILABLE, "etcd down");
        }));
    assertThat(other.getCategory()).isEqualTo(ApplicationErrorCategory.UNSPECIFIED);
    assertThat(other.getType()).isEqualTo("UNAVAILABLE");
  }

  private static ApplicationFailure failureOf(Runnable body) {
    return catchThrowableOfType(ApplicationFailure.class, () -> ActivityFailures.translate(body));
  }
}
