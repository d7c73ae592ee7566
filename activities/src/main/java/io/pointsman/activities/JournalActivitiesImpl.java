package io.pointsman.activities;

import io.pointsman.api.activities.JournalActivities;
import io.pointsman.api.model.JournalWritten;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.engine.Services;
import io.pointsman.engine.primary.JournalsPort;
import io.pointsman.engine.primary.ShardRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** {@link JournalActivities} on the source primaries (vttablet's RPCs or their MySQL). */
public final class JournalActivitiesImpl implements JournalActivities {
  private final Services services;

  public JournalActivitiesImpl(Services services) {
    this.services = Objects.requireNonNull(services, "services");
  }

  @Override
  public List<JournalWritten> readJournalTimes(MigrationInfo info) {
    return ActivityFailures.translate(() -> {
      List<JournalWritten> out = new ArrayList<>();
      for (String shard : info.sourceShards()) {
        ShardRef source = new ShardRef(info.sourceKeyspace(), shard);
        JournalsPort journals = services.primary(source).journals();
        if (journals.read(source, info.migrationId()).isEmpty()) {
          continue;
        }
        out.add(journals.writtenAt(source, info.migrationId())
            .map(t -> new JournalWritten(shard, t.writtenAt(), t.age()))
            .orElse(new JournalWritten(shard, null, null)));
      }
      return out;
    });
  }
}
