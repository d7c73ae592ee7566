package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * How big the sandbox is: the serving shards of {@code customer}, the shards a Reshard of it
 * streams into, and how many tables {@code commerce} holds beyond the example's three. The default
 * is the Vitess local example ({@link SandboxLayout}); the benchmarks widen it to a Reshard into
 * sixteen shards, or a MoveTables of a thousand tables.
 *
 * <p>Tablet uids (also the MariaDB server ids): 100 for commerce/0, then 300, 400, ... for the
 * customer shards in order, serving ones first, as the examples number them.
 *
 * @param customerShards the serving shards of customer, e.g. {@code -80, 80-} or {@code 0}
 * @param reshardTargets the not-yet-serving shards a Reshard of customer streams into
 * @param extraTables how many tables {@code t0001 ...} commerce holds beyond product, customer and
 *     corder; each is shaped like customer, and sharded by the hash of {@code customer_id} in customer
 * @param warehouse whether the unrelated keyspaces {@code warehouse} and {@code archive} (one unsharded
 *     shard each, uids 200 and 250) are there too, for a migration that shares no lock with the others
 */
public record SandboxShape(List<String> customerShards, List<String> reshardTargets, int extraTables,
    boolean warehouse) {
  /** The Vitess local example: customer in two shards, a Reshard into four, commerce's three tables. */
  public static final SandboxShape DEFAULT = new SandboxShape(List.of("-80", "80-"),
      List.of("-40", "40-80", "80-c0", "c0-"), 0);
  /** Enough for the benchmark's MoveTables of a thousand tables, and far within etcd's request limits. */
  public static final int MAX_EXTRA_TABLES = 5000;
  private static final long COMMERCE_UID = 100;
  private static final long FIRST_CUSTOMER_UID = 300;
  private static final long WAREHOUSE_UID = 200;
  private static final long ARCHIVE_UID = 250;

  public SandboxShape {
    customerShards = List.copyOf(customerShards);
    reshardTargets = List.copyOf(reshardTargets);
    if (customerShards.isEmpty()) {
      throw PointsmanException.invalidArgument("customer needs at least one serving shard");
    }
    Stream.concat(customerShards.stream(), reshardTargets.stream()).forEach(Names::shard);
    if (customerShards.stream().anyMatch(reshardTargets::contains)) {
      throw PointsmanException.invalidArgument("a shard is both serving and a Reshard target: " + customerShards
          + ", " + reshardTargets);
    }
    if (extraTables < 0 || extraTables > MAX_EXTRA_TABLES) {
      throw PointsmanException.invalidArgument("extra tables must be from 0 to " + MAX_EXTRA_TABLES + ", was "
          + extraTables);
    }
  }

  public SandboxShape(List<String> customerShards, List<String> reshardTargets, int extraTables) {
    this(customerShards, reshardTargets, extraTables, false);
  }

  /** The default shape with customer served by {@code sources} and resharded into {@code targets}. */
  public static SandboxShape reshard(List<String> sources, List<String> targets) {
    return new SandboxShape(sources, targets, 0);
  }

  /** The default shape with {@code extra} more tables in commerce. */
  public SandboxShape withExtraTables(int extra) {
    return new SandboxShape(customerShards, reshardTargets, extra, warehouse);
  }

  /** This shape with the keyspaces warehouse and archive as well. */
  public SandboxShape withWarehouse() {
    return new SandboxShape(customerShards, reshardTargets, extraTables, true);
  }

  /**
   * {@code n} shards that split the whole key range evenly, as Vitess names them ({@code -80, 80-}
   * for two); {@code n} must be a power of two from 2 to 256.
   */
  public static List<String> evenShards(int n) {
    if (n < 2 || n > 256 || Integer.bitCount(n) != 1) {
      throw PointsmanException.invalidArgument("an even split needs a power of two from 2 to 256 shards, was " + n);
    }
    int step = 256 / n;
    List<String> shards = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String start = i == 0 ? "" : String.format("%02x", i * step);
      String end = i == n - 1 ? "" : String.format("%02x", (i + 1) * step);
      shards.add(start + "-" + end);
    }
    return shards;
  }

  /** commerce/0, the serving customer shards, and warehouse/0 and archive/0 when the shape has them. */
  public List<ShardPrimary> servingPrimaries() {
    List<ShardPrimary> out = new ArrayList<>();
    out.add(new ShardPrimary(SandboxLayout.COMMERCE, "0", COMMERCE_UID));
    for (int i = 0; i < customerShards.size(); i++) {
      out.add(new ShardPrimary(SandboxLayout.CUSTOMER, customerShards.get(i), FIRST_CUSTOMER_UID + 100L * i));
    }
    if (warehouse) {
      out.add(new ShardPrimary(SandboxLayout.WAREHOUSE, "0", WAREHOUSE_UID));
      out.add(new ShardPrimary(SandboxLayout.ARCHIVE, "0", ARCHIVE_UID));
    }
    return out;
  }

  /** The primaries of the Reshard target shards, which exist but do not serve. */
  public List<ShardPrimary> reshardTargetPrimaries() {
    int first = customerShards.size();
    return IntStream.range(0, reshardTargets.size())
        .mapToObj(i -> new ShardPrimary(SandboxLayout.CUSTOMER, reshardTargets.get(i),
            FIRST_CUSTOMER_UID + 100L * (first + i)))
        .toList();
  }

  /** Every primary, in a fixed order that also gives each its offset from the base port. */
  public List<ShardPrimary> allPrimaries() {
    return Stream.concat(servingPrimaries().stream(), reshardTargetPrimaries().stream()).toList();
  }

  /** Whether a primary's shard serves from the start (false for the Reshard targets). */
  public boolean servesInitially(ShardPrimary primary) {
    return servingPrimaries().contains(primary);
  }

  /** The port offset of a primary from the base port: its index in {@link #allPrimaries()}. */
  public int portOffset(ShardPrimary primary) {
    int i = allPrimaries().indexOf(primary);
    if (i < 0) {
      throw PointsmanException.invalidArgument(primary + " is not a primary of the sandbox's shape " + this);
    }
    return i;
  }

  /** The extra tables' names: {@code t0001}, {@code t0002}, ... */
  public List<String> extraTableNames() {
    return IntStream.rangeClosed(1, extraTables).mapToObj(i -> String.format("t%04d", i)).toList();
  }

  /** The VSchema of the unsharded commerce keyspace: the example's three tables and the extra ones. */
  public VSchema commerceVSchema() {
    Map<String, VSchemaTable> tables = new LinkedHashMap<>();
    SandboxLayout.COMMERCE_TABLES.forEach(t -> tables.put(t, VSchemaTable.plain()));
    extraTableNames().forEach(t -> tables.put(t, VSchemaTable.plain()));
    return new VSchema(false, Map.of(), tables);
  }

  /** The VSchema of customer: {@code hash} on {@code customer_id} for customer, corder and the extra tables. */
  public VSchema customerVSchema() {
    VSchemaTable byCustomer = new VSchemaTable(
        null, List.of(new ColumnVindex(SandboxLayout.SHARDING_COLUMN, SandboxLayout.VINDEX_NAME, null)), null, null);
    Map<String, VSchemaTable> tables = new LinkedHashMap<>();
    SandboxLayout.MOVED_TABLES.forEach(t -> tables.put(t, byCustomer));
    extraTableNames().forEach(t -> tables.put(t, byCustomer));
    return new VSchema(true, Map.of(SandboxLayout.VINDEX_NAME, new Vindex(HashVindex.TYPE, null, null)), tables);
  }
}
