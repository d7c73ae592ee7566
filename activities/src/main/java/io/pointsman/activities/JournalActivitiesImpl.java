package io.pointsman.activities;

import io.pointsman.api.activities.JournalActivities;
import io.pointsman.api.model.JournalWritten;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.JournalTimes;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.SidecarSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** {@link JournalActivities} on the source primaries, over MySQL. */
public final class JournalActivitiesImpl implements JournalActivities {
  private final Services services;
  private final JournalTimes times;

  public JournalActivitiesImpl(Services services) {
    this.services = Objects.requireNonNull(services, "services");
    this.times = new JournalTimes(services.pools(), new SidecarSchema(services.pools()));
  }

  @Override
  public List<JournalWritten> readJournalTimes(MigrationInfo info) {
    return ActivityFailures.translate(() -> {
      List<JournalWritten> out = new ArrayList<>();
      for (String shard : info.sourceShards()) {
        PrimaryEndpoint source = services.primaries().resolve(info.sourceKeyspace(), shard);
        if (services.journals().read(source, info.migrationId()).isEmpty()) {
          continue;
        }
        out.add(times.read(source, info.migrationId())
            .map(t -> new JournalWritten(shard, t.writtenAt(), t.age()))
            .orElse(new JournalWritten(shard, null, null)));
      }
      return out;
    });
  }
}
