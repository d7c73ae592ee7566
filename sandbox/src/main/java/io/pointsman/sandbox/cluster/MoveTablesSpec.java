package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import java.util.List;

/**
 * A {@code MoveTables create} request.
 *
 * @param workflow the workflow name
 * @param sourceKeyspace where the tables are now
 * @param targetKeyspace where they move to
 * @param tables the tables to move
 * @param autoStart whether the streams start at once (state Init) or wait (Stopped), as
 *     vtctldclient's {@code --auto-start}
 */
public record MoveTablesSpec(
    String workflow, String sourceKeyspace, String targetKeyspace, List<String> tables, boolean autoStart) {
  public MoveTablesSpec {
    Names.workflow(workflow);
    Names.keyspace(sourceKeyspace);
    Names.keyspace(targetKeyspace);
    tables = List.copyOf(tables);
    if (tables.isEmpty()) {
      throw PointsmanException.invalidArgument("MoveTables needs at least one table");
    }
    tables.forEach(Names::table);
    if (tables.stream().distinct().count() != tables.size()) {
      throw PointsmanException.invalidArgument("a table is listed twice: " + tables);
    }
    if (sourceKeyspace.equals(targetKeyspace)) {
      throw PointsmanException.invalidArgument("MoveTables source and target keyspace are both " + sourceKeyspace);
    }
  }

  /** The sandbox's workflow: {@code commerce2customer} moves customer and corder, started at once. */
  public static MoveTablesSpec sandbox() {
    return new MoveTablesSpec(SandboxLayout.MOVETABLES_WORKFLOW, SandboxLayout.COMMERCE, SandboxLayout.CUSTOMER,
        SandboxLayout.MOVED_TABLES, true);
  }

  /** The unrelated workflow of a shape with the warehouse: {@code warehouse2archive} moves stock. */
  public static MoveTablesSpec warehouse() {
    return new MoveTablesSpec(SandboxLayout.WAREHOUSE_WORKFLOW, SandboxLayout.WAREHOUSE, SandboxLayout.ARCHIVE,
        SandboxLayout.WAREHOUSE_TABLES, true);
  }

  public MoveTablesSpec withAutoStart(boolean start) {
    return new MoveTablesSpec(workflow, sourceKeyspace, targetKeyspace, tables, start);
  }
}
