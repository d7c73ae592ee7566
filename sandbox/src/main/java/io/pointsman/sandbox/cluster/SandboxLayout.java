package io.pointsman.sandbox.cluster;

import io.pointsman.engine.topo.model.VSchema;
import java.util.List;

/**
 * The shape of the sandbox, after the Vitess local examples: an unsharded {@code commerce} keyspace
 * and a {@code customer} keyspace sharded by the {@code hash} vindex on {@code customer_id}, plus
 * the primaries a Reshard of {@code customer} into four shards streams into. Tablet uids follow the
 * examples' numbering (100 for commerce, 300/400 for the customer shards). It is
 * {@link SandboxShape#DEFAULT}; other shapes widen it.
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

  /**
   * A second, unrelated migration when the shape has it ({@link SandboxShape#withWarehouse()}): the
   * unsharded {@code warehouse} moves its {@code stock} table to the unsharded {@code archive}. It
   * shares no keyspace with commerce and customer, so its switches take none of their locks.
   */
  public static final String WAREHOUSE = "warehouse";
  public static final String ARCHIVE = "archive";
  public static final List<String> WAREHOUSE_TABLES = List.of("stock");
  public static final String WAREHOUSE_WORKFLOW = "warehouse2archive";
  public static final String RESHARD_WORKFLOW = "cust2cust";
  public static final List<String> RESHARD_SOURCE_SHARDS = SandboxShape.DEFAULT.customerShards();
  public static final List<String> RESHARD_TARGET_SHARDS = SandboxShape.DEFAULT.reshardTargets();

  /** The primaries of the serving shards: commerce/0, customer/-80, customer/80-. */
  public static final List<ShardPrimary> SERVING_PRIMARIES = SandboxShape.DEFAULT.servingPrimaries();

  /** The primaries of the Reshard target shards, which exist but do not serve. */
  public static final List<ShardPrimary> RESHARD_TARGET_PRIMARIES = SandboxShape.DEFAULT.reshardTargetPrimaries();

  /** Every primary, in a fixed order that also gives each its offset from the base port. */
  public static final List<ShardPrimary> ALL_PRIMARIES = SandboxShape.DEFAULT.allPrimaries();

  private SandboxLayout() {}

  /** The VSchema of an unsharded commerce keyspace holding all three tables. */
  public static VSchema commerceVSchema() {
    return SandboxShape.DEFAULT.commerceVSchema();
  }

  /** The VSchema of the customer keyspace: {@code hash} on {@code customer_id} for both tables. */
  public static VSchema customerVSchema() {
    return SandboxShape.DEFAULT.customerVSchema();
  }
}
