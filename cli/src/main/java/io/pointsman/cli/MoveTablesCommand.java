package io.pointsman.cli;

import picocli.CommandLine.Command;

/** {@code pointsman MoveTables}: the traffic actions of a MoveTables workflow; MirrorTraffic is MoveTables' alone. */
@Command(name = "MoveTables", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Traffic actions of a MoveTables workflow (tables moving between keyspaces).",
    subcommands = {SwitchTrafficCommand.class, ReverseTrafficCommand.class, MirrorTrafficCommand.class,
        MoveTablesCompleteCommand.class, MoveTablesCancelCommand.class, ShowCommand.class, StatusCommand.class,
        ActionsCommand.class})
final class MoveTablesCommand extends MigrationGroup {}
