package io.pointsman.sandbox.cluster;

/** How a server of the sandbox is taken down on purpose, to see what survives it. */
public enum ServerStop {
  /** SIGTERM and a wait for the clean shutdown (SIGKILL only after the stop timeout). */
  GRACEFUL,
  /** SIGKILL at once: no shutdown code runs, as in a crash or an OOM kill. */
  CRASH
}
