package io.pointsman.cli;

import io.pointsman.api.workflows.Pointsman;
import picocli.CommandLine.Command;

/** {@code SwitchTraffic}: reads (REPLICA, RDONLY) and/or writes (PRIMARY) to the target. */
@Command(name = "SwitchTraffic", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = {"Switch traffic from the source to the target: reads for REPLICA and RDONLY, writes for PRIMARY.",
        "Writes stop on the source, replication catches up, a journal records the cut-over, and routing moves; "
            + "on failure before the journal every step is undone."})
final class SwitchTrafficCommand extends TrafficCommand {
  @Override
  String workflowType() {
    return Pointsman.SWITCH_TRAFFIC;
  }
}
