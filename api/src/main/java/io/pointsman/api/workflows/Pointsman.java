package io.pointsman.api.workflows;

import io.temporal.common.SearchAttributeKey;
import java.util.List;

/** Names shared by the worker, the CLI and the workflows: task queue, types, search attributes. */
public final class Pointsman {
  public static final String TASK_QUEUE = "pointsman";

  public static final String SWITCH_TRAFFIC = "SwitchTraffic";
  public static final String REVERSE_TRAFFIC = "ReverseTraffic";
  public static final String COMPLETE_MIGRATION = "CompleteMigration";
  public static final String CANCEL_MIGRATION = "CancelMigration";
  /** vtctldclient MoveTables MirrorTraffic: a share of the queries to the moved tables also sent to the target. */
  public static final String MIRROR_TRAFFIC = "MirrorTraffic";
  /** Not a switching action: checks a workflow's topology against its defined states, changing nothing. */
  public static final String VALIDATE_TOPOLOGY = "ValidateTopology";
  /** Not a switching action: reads a workflow's streams and traffic state as vtctld's show and status print them. */
  public static final String SHOW_WORKFLOW = "ShowWorkflow";

  public static final SearchAttributeKey<String> TARGET_KEYSPACE = SearchAttributeKey.forKeyword("TargetKeyspace");
  public static final SearchAttributeKey<String> VREPLICATION_WORKFLOW =
      SearchAttributeKey.forKeyword("VReplicationWorkflow");
  public static final SearchAttributeKey<String> SWITCH_PHASE = SearchAttributeKey.forKeyword("SwitchPhase");

  /** Every search attribute the workflows upsert; a server must have them registered as Keyword. */
  public static final List<SearchAttributeKey<String>> SEARCH_ATTRIBUTES =
      List.of(TARGET_KEYSPACE, VREPLICATION_WORKFLOW, SWITCH_PHASE);

  private Pointsman() {}

  /**
   * The canonical workflow id of an action, e.g. {@code SwitchTraffic-customer.commerce2customer}.
   * Starting with it (conflict policy FAIL) keeps a second run of the same action from starting;
   * the named lock keeps different actions on one VReplication workflow apart.
   */
  public static String workflowId(String action, String targetKeyspace, String workflow) {
    return action + "-" + targetKeyspace + "." + workflow;
  }

  /** The named etcd lock of a VReplication workflow, as Vitess names it: {@code <targetKeyspace>/<workflow>}. */
  public static String namedLock(String targetKeyspace, String workflow) {
    return targetKeyspace + "/" + workflow;
  }
}
