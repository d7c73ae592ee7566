package io.pointsman.api.model;

import java.util.List;

/**
 * Vitess's workflow State: which cells serve reads from the target per read tablet type, and
 * whether writes are switched. Derived from SrvVSchema routing rules (TABLES) or SrvKeyspace and
 * shard records (SHARDS), as {@code getWorkflowState} does. {@code readsMirrored} and
 * {@code writesMirrored}: whether the global mirror rules mirror any moved table's replica or
 * rdonly reads (primary traffic) to the target, as vtctldclient MirrorTraffic sets them; a switch
 * of those types removes the rules. States recorded before these two read as not mirrored.
 */
public record WorkflowState(
    String workflow,
    String sourceKeyspace,
    String targetKeyspace,
    MigrationType migrationType,
    List<String> replicaCellsSwitched,
    List<String> replicaCellsNotSwitched,
    List<String> rdonlyCellsSwitched,
    List<String> rdonlyCellsNotSwitched,
    boolean writesSwitched,
    boolean readsMirrored,
    boolean writesMirrored) {

  public WorkflowState {
    replicaCellsSwitched = List.copyOf(replicaCellsSwitched);
    replicaCellsNotSwitched = List.copyOf(replicaCellsNotSwitched);
    rdonlyCellsSwitched = List.copyOf(rdonlyCellsSwitched);
    rdonlyCellsNotSwitched = List.copyOf(rdonlyCellsNotSwitched);
  }

  /** A state with nothing mirrored. */
  public WorkflowState(String workflow, String sourceKeyspace, String targetKeyspace, MigrationType migrationType,
      List<String> replicaCellsSwitched, List<String> replicaCellsNotSwitched, List<String> rdonlyCellsSwitched,
      List<String> rdonlyCellsNotSwitched, boolean writesSwitched) {
    this(workflow, sourceKeyspace, targetKeyspace, migrationType, replicaCellsSwitched, replicaCellsNotSwitched,
        rdonlyCellsSwitched, rdonlyCellsNotSwitched, writesSwitched, false, false);
  }

  /** The cells whose reads of {@code type} (REPLICA or RDONLY) go to the target. */
  public List<String> cellsSwitched(TabletType type) {
    return switch (type) {
      case REPLICA -> replicaCellsSwitched;
      case RDONLY -> rdonlyCellsSwitched;
      default -> throw new IllegalArgumentException(type + " reads are not switched by cell");
    };
  }

  /** The cells whose reads of {@code type} (REPLICA or RDONLY) still go to the source. */
  public List<String> cellsNotSwitched(TabletType type) {
    return switch (type) {
      case REPLICA -> replicaCellsNotSwitched;
      case RDONLY -> rdonlyCellsNotSwitched;
      default -> throw new IllegalArgumentException(type + " reads are not switched by cell");
    };
  }

  public boolean readsFullySwitched() {
    return replicaCellsNotSwitched.isEmpty() && rdonlyCellsNotSwitched.isEmpty();
  }

  public boolean anyReadsSwitched() {
    return !replicaCellsSwitched.isEmpty() || !rdonlyCellsSwitched.isEmpty();
  }

  /** The one-line summary Vitess prints, e.g. "Reads Switched. Writes Not Switched". */
  public String summary() {
    String reads;
    if (readsFullySwitched() && anyReadsSwitched()) {
      reads = "All Reads Switched";
    } else if (!anyReadsSwitched()) {
      reads = "Reads Not Switched";
    } else {
      reads = "Reads partially switched. Replica switched in cells: " + String.join(",", replicaCellsSwitched)
          + ". Rdonly switched in cells: " + String.join(",", rdonlyCellsSwitched);
    }
    return reads + ". " + (writesSwitched ? "Writes Switched" : "Writes Not Switched");
  }
}
