package io.pointsman.engine.primary.direct;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.Journal;
import io.pointsman.engine.mysql.JournalTimes;
import io.pointsman.engine.mysql.JournalTimes.JournalTime;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.mysql.ReshardingJournals;
import io.pointsman.engine.primary.JournalsPort;
import io.pointsman.engine.primary.ShardRef;
import java.util.Objects;
import java.util.Optional;

/** {@link JournalsPort} on the primary's {@code _vt.resharding_journal}, written directly. */
final class DirectJournals implements JournalsPort {
  private final PrimaryResolver primaries;
  private final ReshardingJournals journals;
  private final JournalTimes times;

  DirectJournals(PrimaryResolver primaries, ReshardingJournals journals, JournalTimes times) {
    this.primaries = Objects.requireNonNull(primaries, "primaries");
    this.journals = Objects.requireNonNull(journals, "journals");
    this.times = Objects.requireNonNull(times, "times");
  }

  private PrimaryEndpoint at(ShardRef shard) {
    return primaries.resolve(shard.keyspace(), shard.shard());
  }

  @Override
  public boolean create(ShardRef source, Journal journal, LockSet locks) {
    return journals.create(at(source), journal, locks);
  }

  @Override
  public Optional<Journal> read(ShardRef source, long id) {
    return journals.read(at(source), id);
  }

  @Override
  public Optional<JournalTime> writtenAt(ShardRef source, long id) {
    return times.read(at(source), id);
  }
}
