package io.pointsman.sandbox.cluster;

/** One server {@link Sandbox#stopAll} dealt with, and how. */
public record StoppedProcess(String name, SandboxState.Kind kind, long pid, int port, StopOutcome outcome) {}
