package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;

/** binlogdata.VReplicationWorkflowSubType: the {@code workflow_sub_type} column. */
public enum WorkflowSubType {
  NONE(0), PARTIAL(1), ATOMIC_COPY(2);

  private final int code;

  WorkflowSubType(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static WorkflowSubType fromCode(int code) {
    for (WorkflowSubType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw PointsmanException.internal("unknown vreplication workflow_sub_type " + code, null);
  }
}
