package io.pointsman.sandbox.router;

/** What the topology says about a statement right now: send it, or hold it until the topology changes. */
sealed interface Route {
  /** Send to this target. */
  record Serve(Target target) implements Route {}

  /**
   * The topology does not let the statement through now (denied table, shard not serving, a record
   * not loaded yet); vtgate's tablet would refuse it, so it is not sent. Keyspace and shard are
   * null when routing did not get that far.
   */
  record Hold(String keyspace, String shard, String reason) implements Route {}
}
