package io.pointsman.e2e.vitess;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The oracle of a load through vtgate: reads back the {@code customer} rows the load wrote (ids from
 * {@code firstId} on) twice, as a client sees them through vtgate (the routing rules decide the
 * keyspace) and straight from the MariaDB of each primary tablet of the keyspace the test expects to
 * serve the table, and compares them with the writes the load saw acknowledged.
 *
 * <p>It holds when every acknowledged id is there exactly once, on one shard, with the email it was
 * written with, in both reads. Ids of writes in flight or failed may be there or not: a failed
 * write's commit may have happened before its connection broke.
 */
public final class WriteLedger {
  private final VitessCluster cluster;
  private final long firstId;

  public WriteLedger(VitessCluster cluster, long firstId) {
    this.cluster = cluster;
    this.firstId = firstId;
  }

  /**
   * What the two reads found for these acknowledged ids in {@code servedKeyspace}. Each list and map
   * names ids; all empty means the ledger holds.
   *
   * @param viaVtgateMissing acknowledged ids vtgate does not return
   * @param viaVtgateDuplicated ids vtgate returns more than once, with how often
   * @param onShardsMissing acknowledged ids on no primary of the keyspace
   * @param onSeveralShards ids on more than one primary (or twice on one), with the shards
   * @param wrongEmail ids whose row does not have the email the load wrote
   * @param vtgateReadError why vtgate refused the read, if it did (its comparisons are then left out)
   */
  public record Check(String servedKeyspace, int acknowledged, List<Long> viaVtgateMissing,
      SortedMap<Long, Integer> viaVtgateDuplicated, List<Long> onShardsMissing,
      SortedMap<Long, List<String>> onSeveralShards, List<Long> wrongEmail, Optional<String> vtgateReadError) {
    public boolean holds() {
      return vtgateReadError.isEmpty() && viaVtgateMissing.isEmpty() && viaVtgateDuplicated.isEmpty()
          && onShardsMissing.isEmpty() && onSeveralShards.isEmpty() && wrongEmail.isEmpty();
    }

    public String describe() {
      if (holds()) {
        return "ledger holds on " + servedKeyspace + ": all " + acknowledged + " acknowledged writes there exactly once";
      }
      return "ledger broken on " + servedKeyspace + " (" + acknowledged + " acknowledged writes): "
          + vtgateReadError.map(e -> "vtgate refused the read: " + e + ", ").orElse("")
          + "missing through vtgate " + head(viaVtgateMissing)
          + ", duplicated through vtgate " + head(viaVtgateDuplicated.entrySet())
          + ", missing on the primaries " + head(onShardsMissing)
          + ", on several shards " + head(onSeveralShards.entrySet())
          + ", with a wrong email " + head(wrongEmail);
    }

    /** The first 20 of a list of ids, and how many there are: a whole lost minute would be unreadable. */
    private static String head(Collection<?> ids) {
      List<?> all = new ArrayList<>(ids);
      return all.size() <= 20 ? all.toString() : all.subList(0, 20) + " and " + (all.size() - 20) + " more";
    }
  }

  /**
   * Fails, naming the missing, duplicated and misplaced ids, unless every id in {@code acked} is in
   * {@code servedKeyspace} exactly once; returns the check for the test's log.
   */
  public Check assertHolds(String servedKeyspace, Collection<Long> acked) throws SQLException {
    Check check = check(servedKeyspace, acked);
    if (!check.holds()) {
      throw new AssertionError(check.describe());
    }
    return check;
  }

  /** Reads both ways now and compares with {@code acked}; see {@link Check}. */
  public Check check(String servedKeyspace, Collection<Long> acked) throws SQLException {
    SortedSet<Long> wanted = new TreeSet<>(acked);
    SortedMap<Long, List<String>> viaVtgate = new TreeMap<>();
    Optional<String> vtgateError = Optional.empty();
    try {
      viaVtgate = readViaVtgate();
    } catch (SQLException e) {
      // what the primaries hold is still worth naming: a switch that broke vtgate may have lost writes too
      vtgateError = Optional.of(String.valueOf(e.getMessage()));
    }
    SortedMap<Long, List<String>> onShards = readPrimaries(servedKeyspace);

    List<Long> vtgateMissing = new ArrayList<>();
    List<Long> shardsMissing = new ArrayList<>();
    TreeSet<Long> wrongEmail = new TreeSet<>();
    for (long id : wanted) {
      if (vtgateError.isEmpty() && !viaVtgate.containsKey(id)) {
        vtgateMissing.add(id);
      }
      if (!onShards.containsKey(id)) {
        shardsMissing.add(id);
      }
    }
    SortedMap<Long, Integer> vtgateDuplicated = new TreeMap<>();
    for (Map.Entry<Long, List<String>> e : viaVtgate.entrySet()) {
      if (e.getValue().size() > 1) {
        vtgateDuplicated.put(e.getKey(), e.getValue().size());
      }
      if (wanted.contains(e.getKey()) && !e.getValue().stream().allMatch(VtgateLoad.email(e.getKey())::equals)) {
        wrongEmail.add(e.getKey());
      }
    }
    SortedMap<Long, List<String>> several = new TreeMap<>();
    for (Map.Entry<Long, List<String>> e : onShards.entrySet()) {
      if (e.getValue().size() > 1) {
        several.put(e.getKey(), e.getValue());
      }
    }
    return new Check(servedKeyspace, wanted.size(), vtgateMissing, vtgateDuplicated, shardsMissing, several,
        List.copyOf(wrongEmail), vtgateError);
  }

  /** id to the email of each row vtgate returns for it (more than one: a duplicate). */
  private SortedMap<Long, List<String>> readViaVtgate() throws SQLException {
    SortedMap<Long, List<String>> out = new TreeMap<>();
    try (Connection c = cluster.vtgate("");
        PreparedStatement st = c.prepareStatement("select customer_id, email from customer where customer_id >= ?")) {
      st.setLong(1, firstId);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(rs.getString(2));
        }
      }
    }
    return out;
  }

  /** id to the shards whose primary's MariaDB holds it, read as vt_dba from {@code vt_<keyspace>}. */
  private SortedMap<Long, List<String>> readPrimaries(String keyspace) throws SQLException {
    SortedMap<Long, List<String>> out = new TreeMap<>();
    Set<String> seen = new TreeSet<>();
    for (VitessCluster.Tablet t : cluster.tablets()) {
      if (!t.keyspace().equals(keyspace) || !t.type().equals("primary")) {
        continue;
      }
      seen.add(t.shard());
      try (Connection c = cluster.tabletDba(t);
          PreparedStatement st = c.prepareStatement("select customer_id from customer where customer_id >= ?")) {
        st.setLong(1, firstId);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            out.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(t.shard());
          }
        }
      }
    }
    if (seen.isEmpty()) {
      throw new IllegalArgumentException("no primary tablet of keyspace '" + keyspace + "' in " + cluster.tablets());
    }
    return out;
  }
}
