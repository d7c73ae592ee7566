package io.pointsman.api.model;

import java.util.List;
import java.util.Objects;

/**
 * What the topology validator found for one workflow: the defined state it checked the records
 * against (e.g. {@code WRITES_SWITCHED}) and every invariant of that state the world breaks.
 *
 * @param state the workflow state the records were read as
 * @param summary one line on what was checked
 * @param violations the broken invariants; empty when the topology agrees with the state
 */
public record TopologyReport(String targetKeyspace, String workflow, String state, String summary,
    List<Violation> violations) {

  /**
   * One broken invariant.
   *
   * @param invariant its stable name, e.g. {@code BOTH_SIDES_WRITABLE}
   * @param detail what was found, naming the records
   */
  public record Violation(String invariant, String detail) {
    public Violation {
      Objects.requireNonNull(invariant, "invariant");
      Objects.requireNonNull(detail, "detail");
    }
  }

  public TopologyReport {
    Objects.requireNonNull(targetKeyspace, "targetKeyspace");
    Objects.requireNonNull(workflow, "workflow");
    violations = violations == null ? List.of() : List.copyOf(violations);
  }

  /** Whether nothing is broken; a method, not a property, so it stays out of the JSON. */
  public boolean holds() {
    return violations.isEmpty();
  }
}
