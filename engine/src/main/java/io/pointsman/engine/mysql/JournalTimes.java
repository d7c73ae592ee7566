package io.pointsman.engine.mysql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * When each resharding journal was written, in pointsman's own sidecar table {@code journal_time}
 * on the source primary. Vitess's {@code resharding_journal} has no time, and its text-proto value
 * must stay exactly what vtgate parses, so the time lives beside it, written in the journal's own
 * transaction. Complete's {@code journalGrace} reads it (docs/journal.md). Times are the primary's
 * own clock, both when written and when the age is read, so worker clocks play no part.
 */
public final class JournalTimes {
  static final String TABLE = "journal_time";
  static final String DDL = """
      (
        id bigint NOT NULL,
        written_at bigint NOT NULL,
        PRIMARY KEY (id)
      ) ENGINE = InnoDB""";

  private final ConnectionPools pools;
  private final SidecarSchema schema;

  /**
   * When a journal was written, and how long ago, both by the source primary's clock.
   *
   * @param writtenAt whole seconds
   */
  public record JournalTime(Instant writtenAt, Duration age) {}

  public JournalTimes(ConnectionPools pools, SidecarSchema schema) {
    this.pools = Objects.requireNonNull(pools, "pools");
    this.schema = Objects.requireNonNull(schema, "schema");
  }

  /** Stamps journal {@code id} with the primary's time now, in the caller's transaction; a retry keeps the first. */
  static void record(Connection c, PrimaryEndpoint source, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT IGNORE INTO " + table(source)
        + " (id, written_at) VALUES (?, UNIX_TIMESTAMP())")) {
      ps.setLong(1, id);
      ps.executeUpdate();
    }
  }

  /** When journal {@code id} was written on this source; empty when pointsman did not record it (Vitess wrote it). */
  public Optional<JournalTime> read(PrimaryEndpoint source, long id) {
    schema.ensure(source);
    try (Connection c = pools.connection(source);
        PreparedStatement ps = c.prepareStatement(
            "SELECT written_at, UNIX_TIMESTAMP() - written_at FROM " + table(source) + " WHERE id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(new JournalTime(Instant.ofEpochSecond(rs.getLong(1)),
            Duration.ofSeconds(Math.max(0, rs.getLong(2)))));
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("reading when journal " + id + " was written on " + source, e);
    }
  }

  private static String table(PrimaryEndpoint endpoint) {
    return SqlIdentifiers.qualified(endpoint.sidecarDb(), TABLE);
  }
}
