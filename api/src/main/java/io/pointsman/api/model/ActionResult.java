package io.pointsman.api.model;

import java.util.List;

/**
 * What an action returns, as vtctldclient reports it.
 *
 * @param summary e.g. "SwitchTraffic was successful for workflow customer.commerce2customer"
 * @param startState the state before, Vitess's one-line form
 * @param currentState the state after
 * @param dryRunResults for a dry run, the plan; else empty
 */
public record ActionResult(String summary, String startState, String currentState, List<String> dryRunResults) {
  public ActionResult {
    dryRunResults = List.copyOf(dryRunResults);
  }
}
