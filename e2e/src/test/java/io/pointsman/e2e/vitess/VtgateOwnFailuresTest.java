package io.pointsman.e2e.vitess;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Only vtgate's own cut-over failures pass; anything a switch could cause still fails a test. */
class VtgateOwnFailuresTest {
  @Test
  void vtgatesBugAndItsHealthViewsDisagreeingAreItsOwn() {
    assertThat(VtgateOwnFailures.atReshardCutOver("VT13001: [BUG] unexpected 'autocommitted' state in transaction"))
        .isTrue();
    assertThat(VtgateOwnFailures.atReshardCutOver("target: customer.-80.primary: inconsistent state detected, "
        + "primary is serving but initially found no available tablet")).isTrue();
  }

  @Test
  void failuresASwitchCanCauseAreNot() {
    assertThat(VtgateOwnFailures.atReshardCutOver("target: customer.-80.primary: primary is not serving, "
        + "there may be a reparent operation in progress")).isFalse();
    assertThat(VtgateOwnFailures.atReshardCutOver("target: customer.0.primary: no healthy tablet available for "
        + "'keyspace:\"customer\" shard:\"0\" tablet_type:PRIMARY'")).isFalse();
    assertThat(VtgateOwnFailures.atReshardCutOver("target: customer.-80.primary: vttablet: rpc error: code = "
        + "FailedPrecondition desc = disallowed due to rule: enforce denied tables")).isFalse();
    assertThat(VtgateOwnFailures.atReshardCutOver("inconsistent state detected, primary is serving but initially "
        + "found no available tablet; and then something else")).isFalse();
  }
}
