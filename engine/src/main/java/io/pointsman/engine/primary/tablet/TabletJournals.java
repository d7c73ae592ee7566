package io.pointsman.engine.primary.tablet;

import static io.pointsman.engine.tablet.VReplicationStatements.sqlString;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.Journal;
import io.pointsman.engine.mysql.SidecarText;
import io.pointsman.engine.primary.JournalsPort;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.tablet.TabletQueryResult;
import io.pointsman.engine.tablet.VReplicationStatements;
import io.pointsman.engine.mysql.JournalTimes.JournalTime;
import io.pointsman.engine.tablet.DbaQuery;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * {@link JournalsPort} on vttablets: VReplicationExec on {@code _vt.resharding_journal}, as vtctld
 * writes and reads it, with {@code val} in protobuf text form ({@link SidecarText}). The direct-MySQL
 * counterpart is {@link io.pointsman.engine.mysql.ReshardingJournals}.
 */
public final class TabletJournals extends TabletPort implements JournalsPort {
  private final OwnTable times;

  TabletJournals(Shared shared) {
    super(shared);
    this.times = new OwnTable(client, "journal_time", "id bigint not null, written_at bigint not null, primary key (id)");
  }

  /**
   * Inserts the journal without reading for it first: this runs inside the write window, and the
   * switch has just read every source's journal (checkJournals, createJournals). The table's key
   * refuses a second row with the id (ALREADY_EXISTS); only then is the one there read, and an equal
   * journal (an earlier attempt's) is no change.
   */
  @Override
  public boolean create(ShardRef source, Journal journal, LockSet locks) {
    String encoded = SidecarText.encodeJournal(journal);
    TabletPrimary p = fence.raiseOn(source, locks, "writing journal " + journal.id());
    try {
      Outcomes.settle("writing journal " + journal.id() + " on " + p,
          () -> client.vreplicationExec(p.endpoint(), "insert into _vt.resharding_journal (id, db_name, val) values ("
              + journal.id() + ", " + sqlString(p.dbName()) + ", " + sqlString(encoded) + ")").rowsAffected(),
          () -> read(p, journal.id()).map(journal::equals).orElse(false),
          () -> 1L);
    } catch (PointsmanException e) {
      if (e.code() != ErrorCode.ALREADY_EXISTS) {
        throw e;
      }
      Optional<Journal> existing = read(p, journal.id());
      if (existing.isPresent() && existing.get().equals(journal)) {
        return false;
      }
      throw PointsmanException.alreadyExists("a different journal with id " + journal.id() + " exists on " + p
          + ": " + existing.map(SidecarText::encodeJournal).orElse("(gone again)"));
    }
    stamp(p, journal.id());
    return true;
  }

  @Override
  public Optional<JournalTime> writtenAt(ShardRef source, long id) {
    TabletPrimary p = primaries.resolve(source);
    times.ensure(p);
    TabletQueryResult r = client.executeFetchAsDba(p.endpoint(), DbaQuery.of("select written_at, unix_timestamp() - written_at"
        + " from " + times.name() + " where id = " + id));
    if (r.rows().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new JournalTime(Instant.ofEpochSecond(Long.parseLong(r.rows().get(0).get(0))),
        Duration.ofSeconds(Math.max(0, Long.parseLong(r.rows().get(0).get(1))))));
  }

  /**
   * Records when the journal was written, by the primary's clock, in pointsman's own database (the
   * journal grace reads it); a retry keeps the first time. Not in the journal's transaction, which
   * vttablet runs: a crash between the two leaves the journal without a time, read as Vitess's.
   */
  private void stamp(TabletPrimary p, long id) {
    times.ensure(p);
    client.executeFetchAsDba(p.endpoint(), DbaQuery.of("insert ignore into " + times.name()
        + " (id, written_at) values (" + id + ", unix_timestamp())"));
  }

  @Override
  public Optional<Journal> read(ShardRef source, long id) {
    return read(primaries.resolve(source), id);
  }

  private Optional<Journal> read(TabletPrimary p, long id) {
    TabletQueryResult r = client.vreplicationExec(p.endpoint(), VReplicationStatements.readJournal(id));
    if (r.rows().isEmpty()) {
      return Optional.empty();
    }
    String val = r.rows().get(0).get(0);
    return Optional.of(SidecarText.decodeJournal("_vt.resharding_journal id " + id + " on " + p, val == null ? "" : val));
  }
}
