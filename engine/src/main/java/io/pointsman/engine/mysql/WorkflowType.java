package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;

/** binlogdata.VReplicationWorkflowType: the {@code workflow_type} column. */
public enum WorkflowType {
  MATERIALIZE(0), MOVE_TABLES(1), CREATE_LOOKUP_INDEX(2), MIGRATE(3), RESHARD(4), ONLINE_DDL(5);

  private final int code;

  WorkflowType(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static WorkflowType fromCode(int code) {
    for (WorkflowType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw PointsmanException.internal("unknown vreplication workflow_type " + code, null);
  }
}
