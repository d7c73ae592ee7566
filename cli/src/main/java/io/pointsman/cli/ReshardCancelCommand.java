package io.pointsman.cli;

import io.pointsman.api.workflows.Pointsman;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code Reshard Cancel}: like vtctldclient's, only {@code --keep-data}. */
@Command(name = "Cancel", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Cancel a Reshard workflow whose writes are not switched: stop and delete its streams and "
        + "drop the copied tables on the target shards.")
final class ReshardCancelCommand extends ActionCommand {
  @Option(names = "--keep-data", description = "Keep the copied tables on the target shards (default: false).")
  boolean keepData;

  @Mixin
  LockFlags locks;

  @Override
  String workflowType() {
    return Pointsman.CANCEL_MIGRATION;
  }

  @Override
  Object request() {
    return Requests.cancel(spec, group, keepData, false, false, locks);
  }

  @Override
  boolean dryRun() {
    return false;
  }
}
