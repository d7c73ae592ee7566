package io.pointsman.cli;

/**
 * What the CLI is about to run.
 *
 * @param group {@code MoveTables} or {@code Reshard}
 * @param command the action as the CLI names it, e.g. {@code Complete}
 * @param workflowType the Temporal workflow type, e.g. {@code CompleteMigration}
 * @param request the validated workflow input
 */
record ActionRun(String group, String command, String workflowType, String targetKeyspace, String workflow,
    Object request, boolean dryRun) {

  /** {@code customer.commerce2customer}, as Vitess names a workflow in messages. */
  String subject() {
    return targetKeyspace + "." + workflow;
  }

  /** The command that shows this workflow's actions. */
  String statusCommand() {
    return "pointsman " + group + " --workflow " + workflow + " --target-keyspace " + targetKeyspace + " Status";
  }
}
