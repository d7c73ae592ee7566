package io.pointsman.bench;

import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.ReshardSpec;
import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.cluster.SandboxLayout;
import io.pointsman.sandbox.cluster.SandboxOptions;
import io.pointsman.sandbox.cluster.SandboxShape;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What a benchmark switches: the sandbox's MoveTables of {@code customer} and {@code corder} (and
 * optionally more tables), or a Reshard of {@code customer}, with the sandbox shaped for it.
 *
 * @param kind {@code MoveTables} or {@code Reshard}
 * @param label how the report names it, e.g. {@code Reshard -80,80- → 4 shards}
 * @param shape the sandbox's shards and tables
 * @param withReshardTargets whether the Reshard target primaries run (MoveTables needs none)
 * @param create makes the workflow on a running sandbox
 */
record BenchMigration(String kind, String label, SandboxShape shape, boolean withReshardTargets,
    Function<Sandbox, CreatedWorkflow> create) {
  static final String MOVETABLES = "MoveTables";
  static final String RESHARD = "Reshard";

  /** MoveTables commerce → customer of {@code tables} tables: customer, corder and {@code tables - 2} more. */
  static BenchMigration moveTables(int tables) {
    if (tables < 2) {
      throw new IllegalArgumentException("a MoveTables benchmark moves at least customer and corder, asked " + tables);
    }
    SandboxShape shape = SandboxShape.DEFAULT.withExtraTables(tables - 2);
    List<String> moved = new ArrayList<>(SandboxLayout.MOVED_TABLES);
    moved.addAll(shape.extraTableNames());
    MoveTablesSpec spec = new MoveTablesSpec(SandboxLayout.MOVETABLES_WORKFLOW, SandboxLayout.COMMERCE,
        SandboxLayout.CUSTOMER, moved, true);
    return new BenchMigration(MOVETABLES, MOVETABLES + " of " + tables + " tables", shape, false,
        sandbox -> sandbox.moveTablesCreator().create(spec));
  }

  /** Reshard of customer from {@code sources} into {@code targets}. */
  static BenchMigration reshard(List<String> sources, List<String> targets) {
    SandboxShape shape = SandboxShape.reshard(sources, targets);
    ReshardSpec spec = new ReshardSpec(SandboxLayout.RESHARD_WORKFLOW, SandboxLayout.CUSTOMER, sources, targets,
        true);
    return new BenchMigration(RESHARD, RESHARD + " " + String.join(",", sources) + " → " + targets.size()
        + " shards", shape, true, sandbox -> sandbox.reshardCreator().create(spec));
  }

  /** Reshard of a one-shard customer ({@code 0}) into {@code n} even shards. */
  static BenchMigration splitInto(int n) {
    return reshard(List.of("0"), SandboxShape.evenShards(n));
  }

  /**
   * The table the load writes through the router: MoveTables' routing rules send {@code customer}
   * to the side that serves it; without rules (Reshard) commerce's copy of the table makes the bare
   * name ambiguous, so the keyspace is named.
   */
  String loadTable() {
    return kind.equals(MOVETABLES) ? "customer" : SandboxLayout.CUSTOMER + ".customer";
  }

  String targetKeyspace() {
    return SandboxLayout.CUSTOMER;
  }

  String workflow() {
    return kind.equals(MOVETABLES) ? SandboxLayout.MOVETABLES_WORKFLOW : SandboxLayout.RESHARD_WORKFLOW;
  }

  /** How many MariaDB primaries the sandbox runs for it. */
  int primaries() {
    return withReshardTargets ? shape.allPrimaries().size() : shape.servingPrimaries().size();
  }

  SandboxOptions.Builder applyTo(SandboxOptions.Builder builder) {
    builder.shape(shape);
    return withReshardTargets ? builder : builder.withoutReshardTargets();
  }
}
