package io.pointsman.cli;

import io.pointsman.api.workflows.Pointsman;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code SwitchTraffic}: reads (REPLICA, RDONLY) and/or writes (PRIMARY) to the target. */
@Command(name = "SwitchTraffic", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = {"Switch traffic from the source to the target: reads for REPLICA and RDONLY, writes for PRIMARY.",
        "Writes stop on the source, replication catches up, a journal records the cut-over, and routing moves; "
            + "on failure before the journal every step is undone."})
final class SwitchTrafficCommand extends ActionCommand {
  @Mixin
  SwitchFlags flags;

  @Mixin
  LockFlags locks;

  @Override
  String workflowType() {
    return Pointsman.SWITCH_TRAFFIC;
  }

  @Override
  Object request() {
    return Requests.switchTraffic(spec, group, flags, locks);
  }

  @Override
  boolean dryRun() {
    return flags.dryRun;
  }
}
