package io.pointsman.engine.primary;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.Journal;
import io.pointsman.engine.mysql.JournalTimes.JournalTime;
import java.util.Optional;

/**
 * The resharding journal on a source shard's primary: the switch's point of no return. Direct
 * MySQL: {@link io.pointsman.engine.mysql.ReshardingJournals}.
 */
public interface JournalsPort {

  /**
   * Writes the journal, fenced. Idempotent: the same journal already there returns false.
   *
   * @return true when this call wrote it
   * @throws io.pointsman.api.errors.PointsmanException ALREADY_EXISTS when a different journal holds the id
   */
  boolean create(ShardRef source, Journal journal, LockSet locks);

  /** The journal with this id, if one was written. */
  Optional<Journal> read(ShardRef source, long id);

  /**
   * When pointsman wrote the journal, and how long ago, by the primary's clock; empty when it did
   * not record it (Vitess wrote it, or it is not there).
   */
  Optional<JournalTime> writtenAt(ShardRef source, long id);
}
