package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@code <sidecar>.resharding_journal} rows of source primaries: written once, read to resume. */
public final class ReshardingJournals {
  private static final Logger log = LoggerFactory.getLogger(ReshardingJournals.class);

  private final ConnectionPools pools;
  private final MySqlFence fence;
  private final SidecarSchema schema;

  public ReshardingJournals(ConnectionPools pools, MySqlFence fence, SidecarSchema schema) {
    this.pools = Objects.requireNonNull(pools, "pools");
    this.fence = Objects.requireNonNull(fence, "fence");
    this.schema = Objects.requireNonNull(schema, "schema");
  }

  /**
   * Writes the journal on a source primary, fenced, for the endpoint's database. Idempotent: if
   * the same journal is already there (a retried call whose first attempt committed), nothing
   * changes and false is returned.
   *
   * @return true when this call wrote it
   * @throws PointsmanException ALREADY_EXISTS when a different journal holds the same id
   */
  public boolean create(PrimaryEndpoint source, Journal journal, LockSet locks) {
    String encoded = SidecarText.encodeJournal(journal);
    return fence.inTransaction(source, locks, "writing journal " + journal.id(), c -> {
      Optional<Journal> existing = read(c, source, journal.id(), true);
      if (existing.isPresent()) {
        if (existing.get().equals(journal)) {
          log.info("journal {} already written on {}", journal.id(), source);
          return false;
        }
        throw PointsmanException.alreadyExists("a different journal with id " + journal.id() + " exists on " + source
            + ": " + SidecarText.encodeJournal(existing.get()));
      }
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO " + table(source) + " (id, db_name, val) VALUES (?, ?, ?)")) {
        ps.setLong(1, journal.id());
        ps.setString(2, source.dbName());
        ps.setBytes(3, encoded.getBytes(StandardCharsets.UTF_8));
        ps.executeUpdate();
      }
      JournalTimes.record(c, source, journal.id());
      log.info("journal {} written on {}", journal.id(), source);
      return true;
    });
  }

  /** The journal with this id on the source primary, if one was written. */
  public Optional<Journal> read(PrimaryEndpoint source, long id) {
    schema.ensure(source);
    try (Connection c = pools.connection(source)) {
      return read(c, source, id, false);
    } catch (SQLException e) {
      throw SqlErrors.translate("reading journal " + id + " on " + source, e);
    }
  }

  private static Optional<Journal> read(Connection c, PrimaryEndpoint source, long id, boolean forUpdate)
      throws SQLException {
    // Vitess reads by id alone: the id hashes the target keyspace, so it is unique per migration.
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT val FROM " + table(source) + " WHERE id = ?" + (forUpdate ? " FOR UPDATE" : ""))) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        byte[] val = rs.getBytes(1);
        String text = val == null ? "" : new String(val, StandardCharsets.UTF_8);
        String row = source.sidecarDb() + ".resharding_journal id " + id + " on " + source;
        return Optional.of(SidecarText.decodeJournal(row, text));
      }
    }
  }

  private static String table(PrimaryEndpoint endpoint) {
    return SqlIdentifiers.qualified(endpoint.sidecarDb(), "resharding_journal");
  }
}
