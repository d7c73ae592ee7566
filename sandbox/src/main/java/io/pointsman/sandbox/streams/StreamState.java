package io.pointsman.sandbox.streams;

import java.util.Optional;

/** The {@code state} column of {@code _vt.vreplication}, spelled as Vitess spells it. */
public enum StreamState {
  Init,
  Stopped,
  Copying,
  Running,
  Error,
  Lagging;

  /** Whether the runner executes a stream in this state (Vitess runs Init, Copying and Running). */
  public boolean runnable() {
    return this == Init || this == Copying || this == Running;
  }

  /** The state a column value names; empty for a value Vitess does not define. */
  public static Optional<StreamState> parse(String value) {
    for (StreamState s : values()) {
      if (s.name().equals(value)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
