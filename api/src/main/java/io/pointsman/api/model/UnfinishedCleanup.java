package io.pointsman.api.model;

import java.util.Objects;

/**
 * A Complete or Cancel that began changing a workflow and has not finished, as recorded before its
 * first change and deleted after its last. A rerun of the same action finds it and finishes from
 * the workflow as the first run read it: the steps delete what the action's check and
 * buildTrafficSwitcher read (routing rules, source shards, streams), so neither could run again.
 *
 * @param action the workflow type that began (Pointsman.COMPLETE_MIGRATION or CANCEL_MIGRATION)
 * @param info the workflow as that action read it under its locks
 */
public record UnfinishedCleanup(String action, MigrationInfo info) {
  public UnfinishedCleanup {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(info, "info");
  }
}
