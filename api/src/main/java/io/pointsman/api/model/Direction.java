package io.pointsman.api.model;

/** Which way a read switch goes: toward the target (forward) or back to the source (backward). */
public enum Direction {
  FORWARD,
  BACKWARD;

  public Direction reversed() {
    return this == FORWARD ? BACKWARD : FORWARD;
  }
}
