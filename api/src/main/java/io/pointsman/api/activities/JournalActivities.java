package io.pointsman.api.activities;

import io.pointsman.api.model.JournalWritten;
import io.pointsman.api.model.MigrationInfo;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** Reading a switch's resharding journal for Complete's journal grace (docs/journal.md). */
@ActivityInterface
public interface JournalActivities {
  /**
   * The journal of the workflow's migration on each source shard that has one, with when it was
   * written. Read-only.
   */
  @ActivityMethod(name = "readJournalTimes")
  List<JournalWritten> readJournalTimes(MigrationInfo info);
}
