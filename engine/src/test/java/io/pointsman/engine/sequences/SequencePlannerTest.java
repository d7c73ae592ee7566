package io.pointsman.engine.sequences;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.SequenceMetadata;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.engine.testing.EtcdTestFixture;
import io.pointsman.engine.topo.model.AutoIncrement;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sequence plan read from VSchemas in etcd, as Vitess reads them: which sequences a MoveTables
 * into a sharded keyspace initializes and where their tables are, when sequence tables move, and a
 * clear refusal for a sequence table that cannot be located.
 */
class SequencePlannerTest extends EtcdTestFixture {
  private static final VSchemaTable SEQUENCE = new VSchemaTable("sequence", List.of(), null, null);

  private SequencePlanner planner;

  SequencePlannerTest() {
    super(Part.STORE);
  }

  @BeforeEach
  void keyspaces() {
    planner = new SequencePlanner(store);
    keyspace("commerce", new VSchema(false, Map.of(), Map.of("customer", VSchemaTable.plain(),
        "corder", VSchemaTable.plain(), "customer_seq", SEQUENCE)));
    keyspace("lookup", new VSchema(false, Map.of(), Map.of("order_seq", SEQUENCE)));
    keyspace("customer", sharded("`customer_seq`", "lookup.order_seq"));
  }

  @Test
  void asked_eachMovedTableWithASequenceIsPlannedWithTheKeyspaceHoldingItsTable() {
    SequencePlan plan = planner.plan(moveTables("commerce", "customer", "customer", "corder"), true);
    assertThat(plan.initialize()).containsExactly(
        new SequenceMetadata("customer", "customer_id", "commerce", "customer_seq"),
        new SequenceMetadata("corder", "order_id", "lookup", "order_seq"));
    assertThat(plan.resetSourceSequences()).as("no sequence table moves").isFalse();
  }

  @Test
  void notAsked_orFromAShardedSource_nothingIsInitialized() {
    assertThat(planner.plan(moveTables("commerce", "customer", "customer", "corder"), false))
        .isEqualTo(SequencePlan.NONE);
    keyspace("sharded_src", sharded("customer_seq", "lookup.order_seq"));
    assertThat(planner.plan(moveTables("sharded_src", "customer", "customer", "corder"), true).initialize())
        .as("Vitess initializes only when moving out of an unsharded keyspace").isEmpty();
  }

  @Test
  void movingSequenceTablesResetsTheSourcesCaches() {
    keyspace("seqs", new VSchema(false, Map.of(), Map.of("customer_seq", SEQUENCE)));
    SequencePlan plan = planner.plan(moveTables("commerce", "seqs", "customer_seq"), false);
    assertThat(plan.resetSourceSequences()).isTrue();
    assertThat(plan.initialize()).isEmpty();
  }

  @Test
  void aReshardHasNoSequencePlan() {
    MigrationInfo reshard = new MigrationInfo("wf", "customer", "customer", MigrationType.SHARDS,
        List.of("customer", "corder"), List.of("0"), List.of("-80", "80-"), List.of(), 1L, false);
    assertThat(planner.plan(reshard, true)).isEqualTo(SequencePlan.NONE);
  }

  @Test
  void aBareSequenceNameInNoUnshardedKeyspaceIsRefusedByName() {
    keyspace("customer2", sharded("missing_seq", "lookup.order_seq"));
    PointsmanException e = refusal(moveTables("commerce", "customer2", "customer", "corder"));
    assertThat(e.getMessage()).contains("sequence table missing_seq of table customer in the VSchema of keyspace"
        + " customer2 is in no unsharded keyspace's VSchema").contains("nothing was changed");
  }

  @Test
  void aBareSequenceNameInTwoKeyspacesIsRefusedNamingBoth() {
    keyspace("lookup2", new VSchema(false, Map.of(), Map.of("customer_seq", SEQUENCE)));
    PointsmanException e = refusal(moveTables("commerce", "customer", "customer", "corder"));
    assertThat(e.getMessage()).contains("several unsharded keyspaces [commerce, lookup2]")
        .contains("name it keyspace.table");
  }

  @Test
  void aSequenceNameThatIsNoIdentifierIsRefused() {
    keyspace("customer3", sharded("lookup.order seq; drop", "lookup.order_seq"));
    PointsmanException e = refusal(moveTables("commerce", "customer3", "customer", "corder"));
    assertThat(e.getMessage()).contains("sequence lookup.order seq; drop of table customer").contains("not a name");
  }

  private static VSchema sharded(String customerSequence, String orderSequence) {
    List<ColumnVindex> byCustomer = List.of(new ColumnVindex("customer_id", "hash", List.of()));
    return new VSchema(true, Map.of(), Map.of(
        "customer", new VSchemaTable(null, byCustomer, new AutoIncrement("customer_id", customerSequence), null),
        "corder", new VSchemaTable(null, byCustomer, new AutoIncrement("`order_id`", orderSequence), null)));
  }

  private void keyspace(String name, VSchema vschema) {
    store.create(store.keys().keyspace(name), Keyspace.normal());
    store.create(store.keys().vschema(name), vschema);
  }

  /** The planner's refusal of {@code info}: FAILED_PRECONDITION, raised while it only read. */
  private PointsmanException refusal(MigrationInfo info) {
    PointsmanException e = catchThrowableOfType(() -> planner.plan(info, true), PointsmanException.class);
    assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    return e;
  }

  private static MigrationInfo moveTables(String source, String target, String... tables) {
    return new MigrationInfo("wf", source, target, MigrationType.TABLES, List.of(tables), List.of("0"),
        List.of("-80", "80-"), List.of(), 1L, false);
  }
}
