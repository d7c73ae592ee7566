package io.pointsman.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code Reshard Cancel}: like vtctldclient's, only {@code --keep-data}. */
@Command(name = "Cancel", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Cancel a Reshard workflow whose writes are not switched: stop and delete its streams and "
        + "drop the copied tables on the target shards.")
final class ReshardCancelCommand extends CancelCommand {
  @Option(names = "--keep-data", description = "Keep the copied tables on the target shards (default: false).")
  boolean keepData;

  @Mixin
  LockFlags locks;

  @Override
  Object request() {
    return Requests.cancel(spec, group, keepData, false, false, locks);
  }

  @Override
  boolean dryRun() {
    return false;
  }
}
