package io.pointsman.cli;

import picocli.CommandLine.Mixin;

/**
 * SwitchTraffic and ReverseTraffic: the same flags and the same input, only the workflow differs
 * (ReverseTraffic's switches the reverse streams). The mixins stand here, not in the subclasses, in
 * the order the help shows them.
 */
abstract class TrafficCommand extends ActionCommand {
  @Mixin
  SwitchFlags flags;

  @Mixin
  LockFlags locks;

  @Override
  final Object request() {
    return Requests.switchTraffic(spec, group, flags, locks);
  }

  @Override
  final boolean dryRun() {
    return flags.dryRun;
  }
}
