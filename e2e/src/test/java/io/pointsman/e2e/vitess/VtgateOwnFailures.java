package io.pointsman.e2e.vitess;

import java.util.regex.Pattern;

/**
 * The write failures vtgate 24 causes by itself at a Reshard's cut-over, whichever tool switched
 * (docs/real-vitess.md, "A Reshard under write load"). A test under load lets these through and
 * counts any other failure against the switch.
 */
public final class VtgateOwnFailures {
  /**
   * The first write of each connection after a cut-over it had buffered: measured with vtctldclient's
   * own switches on the same cluster.
   */
  public static final String AUTOCOMMITTED_IN_TRANSACTION =
      "VT13001: [BUG] unexpected 'autocommitted' state in transaction";

  /**
   * A write that arrives between vtgate's health check seeing a switched shard's primary stop serving
   * and its keyspace-event watcher handling the same update: the gateway finds no serving primary, the
   * watcher still thinks it serves, so the write is neither buffered nor sent (it never reaches a
   * tablet), and vtgate's retries see the same state within microseconds. Both views come from the one
   * health update the refreshed primary sends, so the window does not depend on who switched.
   */
  static final Pattern HEALTH_VIEWS_DISAGREE = Pattern.compile(
      "target: [^ ]+\\.primary: inconsistent state detected, primary is serving but initially found no available tablet");

  private VtgateOwnFailures() {}

  /** Whether a failed write's message is one of vtgate's own at a Reshard cut-over. */
  public static boolean atReshardCutOver(String message) {
    return AUTOCOMMITTED_IN_TRANSACTION.equals(message) || HEALTH_VIEWS_DISAGREE.matcher(message).matches();
  }
}
