package io.pointsman.cli;

import io.pointsman.api.workflows.Pointsman;
import picocli.CommandLine.Command;

/** {@code ReverseTraffic}: reads and/or writes back to the source, through the reverse workflow. */
@Command(name = "ReverseTraffic", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = {"Switch traffic back to the source: reads for REPLICA and RDONLY, writes for PRIMARY.",
        "Writes go back by a forward switch of the <workflow>_reverse streams, as in Vitess."})
final class ReverseTrafficCommand extends TrafficCommand {
  @Override
  String workflowType() {
    return Pointsman.REVERSE_TRAFFIC;
  }
}
