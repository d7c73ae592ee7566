package io.pointsman.cli;

import io.pointsman.api.workflows.Pointsman;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code MoveTables Cancel}: drop the copied tables on the target and the workflow, before writes switched. */
@Command(name = "Cancel", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Cancel a MoveTables workflow whose writes are not switched: stop and delete its streams, "
        + "drop the copied tables on the target and its routing rules.")
final class MoveTablesCancelCommand extends ActionCommand {
  @Option(names = "--keep-data", description = "Keep the copied tables on the target (default: false).")
  boolean keepData;

  @Option(names = "--keep-routing-rules", description = "Keep the routing rules (default: false).")
  boolean keepRoutingRules;

  @Option(names = "--dry-run",
      description = "Print the plan and change nothing; pointsman's addition, vtctldclient has none here "
          + "(default: false).")
  boolean dryRun;

  @Mixin
  LockFlags locks;

  @Override
  String workflowType() {
    return Pointsman.CANCEL_MIGRATION;
  }

  @Override
  Object request() {
    return Requests.cancel(spec, group, keepData, keepRoutingRules, dryRun, locks);
  }

  @Override
  boolean dryRun() {
    return dryRun;
  }
}
