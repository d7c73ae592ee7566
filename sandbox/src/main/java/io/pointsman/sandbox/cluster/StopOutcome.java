package io.pointsman.sandbox.cluster;

/** What became of a request to stop a server process. */
public enum StopOutcome {
  /** It exited after SIGTERM. */
  STOPPED,
  /** It ignored SIGTERM for the grace period and was killed. */
  KILLED,
  /** It was not running (or its PID now belongs to another program, which is left alone). */
  NOT_RUNNING
}
