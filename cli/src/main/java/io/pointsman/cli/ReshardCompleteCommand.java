package io.pointsman.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code Reshard Complete}: like vtctldclient's, it takes none of MoveTables Complete's flags, only
 * pointsman's own --journal-grace (a Reshard's Complete deletes the source shards a late consumer
 * reads the journal from).
 */
@Command(name = "Complete", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Complete a Reshard workflow whose traffic is fully switched: delete the source shards and "
        + "the streams.")
final class ReshardCompleteCommand extends CompleteCommand {
  @Mixin
  JournalGraceFlag grace;

  @Mixin
  LockFlags locks;

  @Override
  Object request() {
    return Requests.complete(spec, group, false, false, false, false, locks, grace, new VitessOnlyFlags());
  }

  @Override
  boolean dryRun() {
    return false;
  }
}
