package io.pointsman.workflows;

import io.pointsman.api.activities.JournalActivities;
import io.pointsman.api.model.JournalWritten;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.request.GoDurations;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;

/**
 * Complete's journal grace (docs/journal.md): a change-stream consumer still reading a source shard
 * finds the switch's journal there only while the source is kept; Complete with a grace refuses
 * until the journal on every source is at least that old. Asked only when a grace is set, so
 * Complete without one issues the commands it always did.
 */
final class JournalGrace {
  private JournalGrace() {}

  /** Fails Complete (FAILED_PRECONDITION) while a journal of {@code info} is younger than {@code grace}. */
  static void check(MigrationInfo info, Duration grace) {
    if (grace == null || grace.isZero()) {
      return;
    }
    JournalActivities journals = Workflow.newActivityStub(JournalActivities.class, StepOptions.step());
    List<JournalWritten> written = journals.readJournalTimes(info);
    String flag = "--journal-grace (journalGrace) is " + GoDurations.format(grace);
    for (JournalWritten j : written) {
      String where = info.sourceKeyspace() + "/" + j.shard();
      if (!j.known()) {
        throw Cleanup.precondition("cannot complete workflow " + info.qualifiedName() + " yet: its journal on "
            + where + " carries no time pointsman recorded (Vitess wrote it), so its age is unknown and " + flag
            + " cannot be honoured; run Complete without --journal-grace once the change-stream consumers have"
            + " moved past the journal");
      }
      if (j.age().compareTo(grace) < 0) {
        Duration left = grace.minus(j.age());
        throw Cleanup.precondition("cannot complete workflow " + info.qualifiedName() + " yet: its journal on "
            + where + " is " + GoDurations.format(j.age()) + " old (written at " + j.writtenAt()
            + " by that primary's clock) and " + flag + ": Complete may run from " + j.writtenAt().plus(grace)
            + ", in " + GoDurations.format(left) + ". Nothing was changed.");
      }
    }
  }
}
