package io.pointsman.sandbox.cluster;

import io.pointsman.topo.model.ColumnVindex;
import io.pointsman.topo.model.VSchema;
import io.pointsman.topo.model.VSchemaTable;
import io.pointsman.topo.model.Vindex;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The shape of the sandbox, after the Vitess local examples: an unsharded {@code commerce} keyspace
 * and a {@code customer} keyspace sharded by the {@code hash} vindex on {@code customer_id}, plus
 * the primaries a Reshard of {@code customer} into four shards streams into. Tablet uids follow the
 * examples' numbering (100 for commerce, 300/400 for the customer shards).
 */
public final class SandboxLayout {
  public static final String COMMERCE = "commerce";
  public static final String CUSTOMER = "customer";
  public static final String DEFAULT_CELL = "zone1";

  /** The tables of the commerce keyspace; MoveTables moves the last two to customer. */
  public static final List<String> COMMERCE_TABLES = List.of("product", "customer", "corder");
  public static final List<String> MOVED_TABLES = List.of("customer", "corder");
  public static final String SHARDING_COLUMN = "customer_id";
  /** The name of the customer keyspace's vindex (its type is {@link HashVindex#TYPE} too). */
  public static final String VINDEX_NAME = "hash";

  public static final String MOVETABLES_WORKFLOW = "commerce2customer";
  public static final String RESHARD_WORKFLOW = "cust2cust";
  public static final List<String> RESHARD_SOURCE_SHARDS = List.of("-80", "80-");
  public static final List<String> RESHARD_TARGET_SHARDS = List.of("-40", "40-80", "80-c0", "c0-");

  /** The primaries of the serving shards: commerce/0, customer/-80, customer/80-. */
  public static final List<ShardPrimary> SERVING_PRIMARIES = List.of(
      new ShardPrimary(COMMERCE, "0", 100),
      new ShardPrimary(CUSTOMER, "-80", 300),
      new ShardPrimary(CUSTOMER, "80-", 400));

  /** The primaries of the Reshard target shards, which exist but do not serve. */
  public static final List<ShardPrimary> RESHARD_TARGET_PRIMARIES = List.of(
      new ShardPrimary(CUSTOMER, "-40", 500),
      new ShardPrimary(CUSTOMER, "40-80", 600),
      new ShardPrimary(CUSTOMER, "80-c0", 700),
      new ShardPrimary(CUSTOMER, "c0-", 800));

  /** Every primary, in a fixed order that also gives each its offset from the base port. */
  public static final List<ShardPrimary> ALL_PRIMARIES =
      Stream.concat(SERVING_PRIMARIES.stream(), RESHARD_TARGET_PRIMARIES.stream()).toList();

  private SandboxLayout() {}

  /** Whether a primary's shard serves from the start (false for the Reshard targets). */
  public static boolean servesInitially(ShardPrimary primary) {
    return SERVING_PRIMARIES.contains(primary);
  }

  /** The port offset of a primary from the base port: its index in {@link #ALL_PRIMARIES}. */
  public static int portOffset(ShardPrimary primary) {
    int i = ALL_PRIMARIES.indexOf(primary);
    if (i < 0) {
      throw new IllegalArgumentException(primary + " is not a sandbox primary");
    }
    return i;
  }

  /** The VSchema of an unsharded commerce keyspace holding all three tables. */
  public static VSchema commerceVSchema() {
    return new VSchema(false, Map.of(), Map.of(
        "product", VSchemaTable.plain(),
        "customer", VSchemaTable.plain(),
        "corder", VSchemaTable.plain()));
  }

  /** The VSchema of the customer keyspace: {@code hash} on {@code customer_id} for both tables. */
  public static VSchema customerVSchema() {
    VSchemaTable byCustomer = new VSchemaTable(
        null, List.of(new ColumnVindex(SHARDING_COLUMN, VINDEX_NAME, null)), null, null);
    return new VSchema(true,
        Map.of(VINDEX_NAME, new Vindex(HashVindex.TYPE, null, null)),
        Map.of("customer", byCustomer, "corder", byCustomer));
  }
}
