package io.pointsman.cli;

import io.pointsman.temporal.TemporalConnection;
import io.pointsman.workflows.api.CancelRequest;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code Status}: the pointsman actions run on the workflow and the progress of a running one; starts nothing. */
@Command(name = "Status", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = {"Show the latest run of each pointsman action on the workflow (SwitchTraffic, ReverseTraffic, "
        + "Complete, Cancel): its status, result or failure, and the steps of one that is running.",
        "Starts nothing."})
final class StatusCommand implements Callable<Integer> {
  @ParentCommand
  MigrationGroup group;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    // the names are checked the way an action checks them, so a typo is a usage error here too
    CancelRequest names = Requests.cancel(spec, group, false, false, false, defaultLocks());
    try (TemporalConnection temporal = group.root.connect()) {
      return new StatusReport(temporal, spec.commandLine().getOut()).print(group.groupName(), names.targetKeyspace(),
          names.workflow());
    }
  }

  private static LockFlags defaultLocks() {
    LockFlags l = new LockFlags();
    l.lockTtl = "2m";
    l.maxLockHold = "10m";
    return l;
  }
}
