package io.pointsman.cli;

import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.request.GoDurations;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Prints an action's steps as the {@code progress} query reports them: one line when a step starts,
 * one when what a running step reports changes (acquireLocks naming the holder it waits for), one
 * when it ends (done, failed, undone by compensation, skipped), each at its offset from the first
 * step, in workflow time. Fed the same progress twice, it prints nothing new.
 */
final class ProgressPrinter {
  private static final int MAX_DETAIL = 160;

  private final PrintWriter out;
  private final Map<Integer, StepStatus> printed = new HashMap<>();
  private final Map<Integer, String> printedDetail = new HashMap<>();
  private String phase;
  private Instant origin;
  private List<String> plan = List.of();

  ProgressPrinter(PrintWriter out) {
    this.out = out;
  }

  void show(Progress progress) {
    List<StepProgress> steps = progress.steps();
    for (int i = 0; i < steps.size(); i++) {
      StepProgress s = steps.get(i);
      if (origin == null && s.startedAt() != null) {
        origin = s.startedAt();
      }
      StepStatus last = printed.get(i);
      if (s.status() == StepStatus.PENDING) {
        continue;
      }
      if (s.status() == last) {
        if (s.status() == StepStatus.RUNNING && !Objects.equals(s.detail(), printedDetail.get(i))) {
          out.println(line(s, "waiting"));
          printedDetail.put(i, s.detail());
        }
        continue;
      }
      out.println(line(s, verb(s.status())));
      printed.put(i, s.status());
      printedDetail.put(i, s.detail());
    }
    // after the steps: the phase is where the action is now, past the steps printed above
    if (progress.phase() != null && !Objects.equals(progress.phase(), phase)) {
      phase = progress.phase();
      out.println("  phase: " + phase);
    }
    plan = progress.plan();
    out.flush();
  }

  /** Whether any step has been seen: the workflow runs on a worker. */
  boolean sawAnyStep() {
    return !printed.isEmpty();
  }

  /** The dry-run plan of the last progress seen. */
  List<String> plan() {
    return plan;
  }

  private String line(StepProgress s, String verb) {
    boolean running = s.status() == StepStatus.RUNNING;
    Instant at = running || s.finishedAt() == null ? s.startedAt() : s.finishedAt();
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "  %8s  %-7s %s", offset(at), verb, s.name()));
    if (!running && s.startedAt() != null && s.finishedAt() != null) {
      b.append(" (").append(GoDurations.format(Duration.between(s.startedAt(), s.finishedAt()))).append(')');
    }
    if (s.detail() != null && !s.detail().isBlank()) {
      b.append(": ").append(clip(s.detail()));
    }
    return b.toString();
  }

  private String offset(Instant at) {
    if (origin == null || at == null) {
      return "";
    }
    return "+" + String.format(Locale.ROOT, "%.1fs", Duration.between(origin, at).toMillis() / 1000.0);
  }

  /** Details stay on one line; Status and the Temporal UI show them whole. */
  static String clip(String detail) {
    String oneLine = detail.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= MAX_DETAIL ? oneLine : oneLine.substring(0, MAX_DETAIL - 3) + "...";
  }

  static String verb(StepStatus status) {
    return switch (status) {
      case RUNNING -> "start";
      case DONE -> "done";
      case FAILED -> "FAILED";
      case COMPENSATED -> "undone";
      case SKIPPED -> "skipped";
      case PENDING -> "pending";
    };
  }
}
