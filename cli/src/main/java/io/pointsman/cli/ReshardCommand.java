package io.pointsman.cli;

import picocli.CommandLine.Command;

/** {@code pointsman Reshard}: the traffic actions of a Reshard workflow; Complete and Cancel take fewer flags. */
@Command(name = "Reshard", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Traffic actions of a Reshard workflow (shards of one keyspace split or merged).",
    subcommands = {SwitchTrafficCommand.class, ReverseTrafficCommand.class, ReshardCompleteCommand.class,
        ReshardCancelCommand.class, ShowCommand.class, StatusCommand.class, ActionsCommand.class})
final class ReshardCommand extends MigrationGroup {}
