package io.pointsman.activities.show;

import io.pointsman.api.model.WorkflowState;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The traffic state line as vtctld words it in WorkflowStatus ({@code traffic_state}): reads in
 * each read tablet type, then writes, joined by ". ". Word for word, since scripts match on it.
 */
final class TrafficState {
  private static final DateTimeFormatter ANSIC =
      DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT);

  private TrafficState() {}

  static String describe(WorkflowState s) {
    List<String> parts = new ArrayList<>();
    boolean replicaSwitched = !s.replicaCellsSwitched().isEmpty();
    boolean rdonlySwitched = !s.rdonlyCellsSwitched().isEmpty();
    if (s.rdonlyCellsNotSwitched().isEmpty() && s.replicaCellsNotSwitched().isEmpty() && replicaSwitched) {
      parts.add("All Reads Switched");
    } else if (!replicaSwitched && !rdonlySwitched) {
      parts.add("Reads Not Switched");
    } else {
      parts.add("Reads partially switched");
      parts.add(s.replicaCellsNotSwitched().isEmpty() ? "All Replica Reads Switched"
          : !replicaSwitched ? "Replica not switched"
          : "Replica switched in cells: " + String.join(",", s.replicaCellsSwitched()));
      parts.add(s.rdonlyCellsNotSwitched().isEmpty() ? "All Rdonly Reads Switched"
          : !rdonlySwitched ? "Rdonly not switched"
          : "Rdonly switched in cells: " + String.join(",", s.rdonlyCellsSwitched()));
    }
    parts.add(s.writesSwitched() ? "Writes Switched" : "Writes Not Switched");
    return String.join(". ", parts);
  }

  /** Go's time.ANSIC in the worker's zone, as vtctld formats a stream's last transaction time. */
  static String ansic(Instant t) {
    return ANSIC.format(t.atZone(ZoneId.systemDefault()));
  }
}
