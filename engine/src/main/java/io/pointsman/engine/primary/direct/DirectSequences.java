package io.pointsman.engine.primary.direct;

import io.pointsman.api.model.SequenceMetadata;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.SqlErrors;
import io.pointsman.engine.mysql.SqlIdentifiers;
import io.pointsman.engine.primary.SequencesPort;
import io.pointsman.engine.primary.ShardRef;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * {@link SequencesPort} by SQL on the primary's MySQL, the same statements vttablet runs for its
 * sequence RPCs. No vttablet caches ids here, so there is no cache to reset; and a missing sequence
 * table is an error rather than created, since no tablet would serve it.
 */
final class DirectSequences extends DirectPort implements SequencesPort {
  DirectSequences(Shared shared) {
    super(shared);
  }

  @Override
  public Map<String, Long> maxValues(ShardRef shard, List<SequenceMetadata> sequences) {
    PrimaryEndpoint primary = at(shard);
    Map<String, Long> out = new TreeMap<>();
    try (Connection c = pools.connection(primary); Statement st = c.createStatement()) {
      for (SequenceMetadata s : sequences) {
        try (ResultSet rs = st.executeQuery("SELECT MAX(" + SqlIdentifiers.column(s.usingColumn()) + ") FROM "
            + SqlIdentifiers.qualified(primary.dbName(), s.usingTable()))) {
          rs.next();
          out.merge(s.backingTable(), rs.getLong(1), Math::max); // NULL (no rows) reads as 0
        }
      }
      return out;
    } catch (SQLException e) {
      throw SqlErrors.translate("reading the highest ids of " + sequences.stream().map(SequenceMetadata::usingTable)
          .toList() + " on " + primary, e);
    }
  }

  @Override
  public OptionalLong nextValue(ShardRef shard, String backingTable) {
    PrimaryEndpoint primary = at(shard);
    try (Connection c = pools.connection(primary); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT next_id FROM " + SqlIdentifiers.qualified(primary.dbName(), backingTable)
            + " WHERE id = 0")) {
      if (!rs.next()) {
        return OptionalLong.empty();
      }
      long v = rs.getLong(1);
      return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(v);
    } catch (SQLException e) {
      throw SqlErrors.translate("reading sequence table " + backingTable + " on " + primary, e);
    }
  }

  @Override
  public void updateSequenceTables(ShardRef shard, Map<String, Long> highestByBackingTable) {
    PrimaryEndpoint primary = at(shard);
    try (Connection c = pools.connection(primary)) {
      for (Map.Entry<String, Long> e : highestByBackingTable.entrySet()) {
        long next = e.getValue() + 1;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + SqlIdentifiers.qualified(primary.dbName(), e.getKey())
            + " (id, next_id, cache) VALUES (0, ?, 1000) ON DUPLICATE KEY UPDATE next_id = IF(next_id < ?, ?, next_id)")) {
          ps.setLong(1, next);
          ps.setLong(2, next);
          ps.setLong(3, next);
          ps.executeUpdate();
        }
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("moving sequence tables " + highestByBackingTable.keySet() + " on " + primary, e);
    }
  }

  @Override
  public void resetSequences(ShardRef shard, Collection<String> tables) {
    // nothing cached: only a vttablet caches sequence values
  }
}
