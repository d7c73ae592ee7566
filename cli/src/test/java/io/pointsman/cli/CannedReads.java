package io.pointsman.cli;

import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.WorkflowState;
import io.temporal.activity.Activity;
import io.temporal.activity.DynamicActivity;
import io.temporal.common.converter.EncodedValues;
import java.util.List;

/**
 * Every activity of a second test worker ({@link #TASK_QUEUE}): the two reads an action makes
 * before its locks answer a MoveTables from {@link #SOURCE_KEYSPACE} with nothing switched, so a
 * dry run ends; anything else is unreachable, as on {@link UnreachableTopology}'s worker.
 */
final class CannedReads implements DynamicActivity {
  static final String TASK_QUEUE = "pointsman-canned-reads";
  static final String SOURCE_KEYSPACE = "commerce";
  private static final List<String> CELLS = List.of("zone1");

  private final UnreachableTopology unreachable = new UnreachableTopology();

  @Override
  public Object execute(EncodedValues args) {
    return switch (Activity.getExecutionContext().getInfo().getActivityType()) {
      case "BuildTrafficSwitcher" -> moveTables(args.get(0, String.class), args.get(1, String.class));
      case "GetWorkflowState" -> notSwitched(args.get(0, MigrationInfo.class));
      default -> unreachable.execute(args);
    };
  }

  private static MigrationInfo moveTables(String targetKeyspace, String workflow) {
    return new MigrationInfo(workflow, SOURCE_KEYSPACE, targetKeyspace, MigrationType.TABLES,
        List.of("customer", "corder"), List.of("0"), List.of("-80", "80-"), List.of(), 1L, false);
  }

  private static WorkflowState notSwitched(MigrationInfo info) {
    return new WorkflowState(info.workflow(), info.sourceKeyspace(), info.targetKeyspace(), info.migrationType(),
        List.of(), CELLS, List.of(), CELLS, false);
  }
}
