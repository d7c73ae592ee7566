package io.pointsman.sandbox.router;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SqlFailureTest {

  @Test
  void aDenyTriggerIsARefusalSafeToRetry() {
    assertThat(SqlFailure.classify(new SQLException("pointsman: writes denied on table customer", "45000", 1644)))
        .isEqualTo(SqlFailure.REFUSED);
  }

  @Test
  void anUnrelated45000IsTheStatementsOwnFailure() {
    assertThat(SqlFailure.classify(new SQLException("order total must be positive", "45000", 1644)))
        .isEqualTo(SqlFailure.REJECTED);
  }

  @Test
  void aReadOnlyPrimaryIsARefusal() {
    assertThat(SqlFailure.classify(new SQLException(
        "The MariaDB server is running with the --read-only option so it cannot execute this statement",
        "HY000", 1290))).isEqualTo(SqlFailure.REFUSED);
  }

  @Test
  void brokenConnectionsAndTimeoutsLeaveTheOutcomeUnknown() {
    assertThat(SqlFailure.classify(new SQLNonTransientConnectionException("Communications link failure", "08S01")))
        .isEqualTo(SqlFailure.UNKNOWN_OUTCOME);
    assertThat(SqlFailure.classify(new SQLTimeoutException("Statement cancelled due to timeout"))).isEqualTo(
        SqlFailure.UNKNOWN_OUTCOME);
    assertThat(SqlFailure.classify(new SQLException("Query execution was interrupted", "70100", 1317)))
        .isEqualTo(SqlFailure.UNKNOWN_OUTCOME);
  }

  @Test
  void aDuplicateKeyIsRejected() {
    assertThat(SqlFailure.classify(new SQLException("Duplicate entry '9' for key 'PRIMARY'", "23000", 1062)))
        .isEqualTo(SqlFailure.REJECTED);
  }
}
