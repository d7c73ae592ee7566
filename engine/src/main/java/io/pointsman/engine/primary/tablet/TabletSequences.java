package io.pointsman.engine.primary.tablet;

import io.pointsman.api.model.SequenceMetadata;
import io.pointsman.engine.mysql.SqlIdentifiers;
import io.pointsman.engine.primary.SequencesPort;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.tablet.DbaQuery;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import tabletmanagerdata.Tabletmanagerdata.GetMaxValueForSequencesRequest;
import tabletmanagerdata.Tabletmanagerdata.UpdateSequenceTablesRequest;

/**
 * {@link SequencesPort} through vttablet's own sequence RPCs, the ones vtctld's switch uses: the
 * tablet reads the maxima, upserts the sequence row (creating a missing sequence table) and drops
 * its cache, which only the tablet can do since the cache lives in its memory.
 */
public final class TabletSequences extends TabletPort implements SequencesPort {
  TabletSequences(Shared shared) {
    super(shared);
  }

  @Override
  public Map<String, Long> maxValues(ShardRef shard, List<SequenceMetadata> sequences) {
    TabletPrimary p = primaries.resolve(shard);
    Map<String, Long> out = new TreeMap<>();
    // The RPC answers one value per backing table, so tables sharing one go in separate rounds.
    List<SequenceMetadata> left = new ArrayList<>(sequences);
    while (!left.isEmpty()) {
      Map<String, GetMaxValueForSequencesRequest.SequenceMetadata> round = new TreeMap<>();
      for (Iterator<SequenceMetadata> it = left.iterator(); it.hasNext(); ) {
        SequenceMetadata s = it.next();
        if (!round.containsKey(s.backingTable())) {
          round.put(s.backingTable(), asked(s, p.dbName()));
          it.remove();
        }
      }
      Map<String, Long> got = client.getMaxValueForSequences(p.endpoint(), List.copyOf(round.values()));
      round.keySet().forEach(table -> out.merge(table, got.getOrDefault(table, 0L), Math::max));
    }
    return out;
  }

  private static GetMaxValueForSequencesRequest.SequenceMetadata asked(SequenceMetadata s, String dbName) {
    return GetMaxValueForSequencesRequest.SequenceMetadata.newBuilder()
        .setBackingTableName(s.backingTable())
        .setUsingColEscaped(SqlIdentifiers.column(s.usingColumn()))
        .setUsingTableNameEscaped(SqlIdentifiers.table(s.usingTable()))
        .setUsingTableDbNameEscaped(SqlIdentifiers.database(dbName))
        .build();
  }

  @Override
  public OptionalLong nextValue(ShardRef shard, String backingTable) {
    TabletPrimary p = primaries.resolve(shard);
    List<List<String>> rows = client.executeFetchAsDba(p.endpoint(), DbaQuery.of("select next_id from "
        + SqlIdentifiers.qualified(p.dbName(), backingTable) + " where id = 0")).rows();
    if (rows.isEmpty() || rows.get(0).get(0) == null) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Long.parseLong(rows.get(0).get(0)));
  }

  @Override
  public void updateSequenceTables(ShardRef shard, Map<String, Long> highestByBackingTable) {
    TabletPrimary p = primaries.resolve(shard);
    List<UpdateSequenceTablesRequest.SequenceMetadata> sequences = new ArrayList<>();
    highestByBackingTable.forEach((table, max) -> sequences.add(UpdateSequenceTablesRequest.SequenceMetadata
        .newBuilder().setBackingTableName(table).setBackingTableDbName(p.dbName()).setMaxValue(max).build()));
    client.updateSequenceTables(p.endpoint(), sequences);
  }

  @Override
  public void resetSequences(ShardRef shard, Collection<String> tables) {
    client.resetSequences(primaries.resolve(shard).endpoint(), List.copyOf(tables));
  }
}
