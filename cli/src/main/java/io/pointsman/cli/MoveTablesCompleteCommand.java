package io.pointsman.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code MoveTables Complete}: drop the moved tables on the source and the workflow's artifacts. */
@Command(name = "Complete", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Complete a MoveTables workflow whose traffic is fully switched: drop the source tables, "
        + "the streams and the routing rules.")
final class MoveTablesCompleteCommand extends CompleteCommand {
  @Option(names = "--keep-data", description = "Keep the source tables (default: false).")
  boolean keepData;

  @Option(names = "--keep-routing-rules", description = "Keep the routing rules (default: false).")
  boolean keepRoutingRules;

  @Option(names = "--rename-tables",
      description = "Rename the source tables to _<table>_old instead of dropping them (default: false).")
  boolean renameTables;

  @Option(names = "--dry-run", description = "Print the plan and change nothing (default: false).")
  boolean dryRun;

  @Mixin
  JournalGraceFlag grace;

  @Mixin
  VitessOnlyFlags vitessOnly;

  @Mixin
  LockFlags locks;

  @Override
  Object request() {
    return Requests.complete(spec, group, keepData, keepRoutingRules, renameTables, dryRun, locks, grace, vitessOnly);
  }

  @Override
  boolean dryRun() {
    return dryRun;
  }
}
