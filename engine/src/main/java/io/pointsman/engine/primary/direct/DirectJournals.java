package io.pointsman.engine.primary.direct;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.Journal;
import io.pointsman.engine.mysql.JournalTimes.JournalTime;
import io.pointsman.engine.primary.JournalsPort;
import io.pointsman.engine.primary.ShardRef;
import java.util.Optional;

/** {@link JournalsPort} on the primary's {@code _vt.resharding_journal}, written directly. */
final class DirectJournals extends DirectPort implements JournalsPort {
  DirectJournals(Shared shared) {
    super(shared);
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
