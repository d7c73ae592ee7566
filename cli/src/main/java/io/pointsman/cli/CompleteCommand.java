package io.pointsman.cli;

import io.pointsman.api.workflows.Pointsman;

/**
 * A Complete of either kind of workflow: one workflow type, the flags each kind takes (its own, as
 * vtctldclient's) stand in the subclass.
 */
abstract class CompleteCommand extends ActionCommand {
  @Override
  final String workflowType() {
    return Pointsman.COMPLETE_MIGRATION;
  }
}
