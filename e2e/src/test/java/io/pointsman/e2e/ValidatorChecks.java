package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.validate.ValidationReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The check every world makes after an action, on the sandbox and on real Vitess alike. */
public final class ValidatorChecks {
  private static final Logger log = LoggerFactory.getLogger(ValidatorChecks.class);

  private ValidatorChecks() {}

  /**
   * The validator names no broken invariant and finds the workflow in {@code state} (e.g.
   * ALL_SWITCHED); the report is logged, and named in a failure.
   */
  public static ValidationReport assertDefined(ValidationReport report, String state) {
    log.info("validator: {}", report.describe());
    assertThat(report.violations()).as(report.describe()).isEmpty();
    assertThat(report.state()).as(report.describe()).isEqualTo(state);
    return report;
  }
}
