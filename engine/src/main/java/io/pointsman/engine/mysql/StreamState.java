package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;

/** binlogdata.VReplicationWorkflowState, spelled in {@code _vt.vreplication.state} as Vitess writes it. */
public enum StreamState {
  INIT("Init"),
  STOPPED("Stopped"),
  COPYING("Copying"),
  RUNNING("Running"),
  ERROR("Error"),
  LAGGING("Lagging");

  private final String column;

  StreamState(String column) {
    this.column = column;
  }

  /** The value stored in the {@code state} column. */
  public String column() {
    return column;
  }

  static StreamState fromColumn(String value) {
    for (StreamState s : values()) {
      if (s.column.equals(value)) {
        return s;
      }
    }
    throw PointsmanException.internal("unknown vreplication state '" + value + "'", null);
  }
}
