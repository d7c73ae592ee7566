package io.pointsman.cli;

import io.pointsman.api.workflows.Pointsman;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code MoveTables MirrorTraffic}: vtgate also sends a share of the queries to the moved tables
 * to the target keyspace, before any of that traffic is switched. MoveTables only, as in
 * vtctldclient, which offers no mirrortraffic on Reshard or Migrate.
 */
@Command(name = "MirrorTraffic", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = {"Mirror a share of the traffic to the moved tables to the target keyspace: vtgate sends those "
        + "queries to the target as well and discards its answers, so the target is tried under real load "
        + "while the source still serves it.",
        "Tablet types whose traffic is already switched are refused. --percent 0 stops mirroring the types given."})
final class MirrorTrafficCommand extends ActionCommand {
  @Option(names = "--tablet-types", split = ",", paramLabel = "TYPES",
      description = "Tablet types to mirror traffic for: any of PRIMARY, REPLICA, RDONLY, comma-separated "
          + "(default: all three).")
  List<String> tabletTypes = new ArrayList<>();

  /** Text, not a float: a value that is no number is refused in pointsman's words, naming the flag. */
  @Option(names = "--percent", paramLabel = "PERCENT",
      description = "Percentage of the traffic to mirror, from 0 to 100; 0 removes the mirror rules of the types "
          + "given (default: 1.0).")
  String percent;

  @Option(names = "--dry-run",
      description = "Print the plan and change nothing; pointsman's addition, vtctldclient has none here "
          + "(default: false).")
  boolean dryRun;

  @Mixin
  LockFlags locks;

  @Override
  String workflowType() {
    return Pointsman.MIRROR_TRAFFIC;
  }

  @Override
  Object request() {
    return Requests.mirrorTraffic(spec, group, tabletTypes, percent, dryRun, locks);
  }

  @Override
  boolean dryRun() {
    return dryRun;
  }
}
