package io.pointsman.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code MoveTables Cancel}: drop the copied tables on the target and the workflow, before writes switched. */
@Command(name = "Cancel", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Cancel a MoveTables workflow whose writes are not switched: stop and delete its streams, "
        + "drop the copied tables on the target and its routing rules.")
final class MoveTablesCancelCommand extends CancelCommand {
  @Option(names = "--keep-data", description = "Keep the copied tables on the target (default: false).")
  boolean keepData;

  @Option(names = "--keep-routing-rules", description = "Keep the routing rules (default: false).")
  boolean keepRoutingRules;

  @Option(names = "--dry-run",
      description = "Print the plan and change nothing; pointsman's addition, vtctldclient has none here "
          + "(default: false).")
  boolean dryRun;

  @Option(names = "--delete-batch-size", paramLabel = "ROWS", defaultValue = "1000",
      description = "vtctldclient's batch size for deleting a tenant's rows when a multi-tenant MoveTables is "
          + "cancelled. Accepted for scripts and checked to be positive; it has no effect, since pointsman refuses "
          + "multi-tenant workflows (default: ${DEFAULT-VALUE}).")
  long deleteBatchSize;

  @Mixin
  VitessOnlyFlags vitessOnly;

  @Mixin
  LockFlags locks;

  @Override
  Object request() {
    if (deleteBatchSize < 1) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(),
          "invalid value for --delete-batch-size: must be at least 1, got " + deleteBatchSize);
    }
    return Requests.cancel(spec, group, keepData, keepRoutingRules, dryRun, locks, vitessOnly);
  }

  @Override
  boolean dryRun() {
    return dryRun;
  }
}
