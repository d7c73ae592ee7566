package io.pointsman.engine.validate;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What {@link TopologyValidator} found for one VReplication workflow: the state it recognised and
 * every invariant the topology, the primaries or the locks break.
 *
 * @param state the defined state the records were checked against, e.g. {@code WRITES_SWITCHED}
 * @param summary one line describing what was read (Vitess's state words, streams, locks)
 * @param violations every broken invariant, empty when the world is in a defined state
 */
public record ValidationReport(String targetKeyspace, String workflow, String state, String summary,
    List<Violation> violations) {

  /**
   * One broken invariant.
   *
   * @param invariant a stable name a test or an operator can match, e.g. {@code BOTH_SIDES_WRITABLE}
   * @param detail which records say what
   */
  public record Violation(String invariant, String detail) {
    @Override
    public String toString() {
      return invariant + ": " + detail;
    }
  }

  public ValidationReport {
    violations = List.copyOf(violations);
  }

  public boolean ok() {
    return violations.isEmpty();
  }

  /** The names of the violated invariants, in the order found (a name may repeat). */
  public List<String> invariants() {
    return violations.stream().map(Violation::invariant).toList();
  }

  /** Human-readable, one violation a line. */
  public String describe() {
    String head = targetKeyspace + "." + workflow + ": " + state + " (" + summary + ")";
    if (ok()) {
      return head + "\nno violation";
    }
    return head + "\n" + violations.stream().map(v -> "  VIOLATION " + v).collect(Collectors.joining("\n"));
  }
}
