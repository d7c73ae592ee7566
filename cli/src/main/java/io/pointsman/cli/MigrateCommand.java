package io.pointsman.cli;

import picocli.CommandLine.Command;

/**
 * {@code pointsman Migrate}: a Migrate workflow imports tables from outside the cluster and has no
 * traffic to switch, so, as with vtctldclient's, it is completed or cancelled (docs/migrate.md).
 * The actions are MoveTables' own: the workflow says itself that it is a Migrate.
 */
@Command(name = "Migrate", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Complete or cancel a Migrate workflow (tables imported from a mounted cluster or an external "
        + "MySQL): it is finalized on the target keyspace alone.",
    subcommands = {MoveTablesCompleteCommand.class, MoveTablesCancelCommand.class, ShowCommand.class})
final class MigrateCommand extends MigrationGroup {}
