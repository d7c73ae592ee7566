package io.pointsman.engine.tablet;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.WorkflowSubType;
import io.pointsman.engine.mysql.WorkflowType;
import java.util.List;
import java.util.Objects;

/**
 * A workflow to create on a tablet with CreateVReplicationWorkflow: one stream per source. The
 * tablet starts each stream from the source's current position (the request has no position), so
 * this is how vtctld creates new workflows, not reverse streams: those must start at the position
 * the target had at the switch and are inserted through VReplicationExec
 * ({@link VReplicationStatements#insertStream}).
 *
 * @param workflow the workflow name
 * @param sources one stream per source
 * @param cells cells to pick source tablets in; empty: the tablet's own
 * @param tabletTypes tablet types to pick source tablets of; empty: the tablet's default
 * @param type MoveTables, Reshard, ...
 * @param subType none, partial, atomic copy
 * @param autoStart whether the tablet starts the streams at once (otherwise they stay Stopped)
 * @param stopAfterCopy whether the streams stop once their copy phase is done
 * @param options the workflow options as a JSON object; {@code {}} for none (the column is JSON, and
 *     MariaDB's check constraint rejects an empty string: {@code CONSTRAINT `vreplication.options` failed})
 */
public record NewWorkflow(
    String workflow,
    List<BinlogSource> sources,
    List<String> cells,
    List<TabletType> tabletTypes,
    WorkflowType type,
    WorkflowSubType subType,
    boolean autoStart,
    boolean stopAfterCopy,
    String options) {

  public NewWorkflow {
    if (workflow == null || workflow.isBlank()) {
      throw PointsmanException.invalidArgument("new workflow has no name");
    }
    if (sources == null || sources.isEmpty()) {
      throw PointsmanException.invalidArgument("new workflow '" + workflow + "' has no source");
    }
    sources = List.copyOf(sources);
    cells = cells == null ? List.of() : List.copyOf(cells);
    tabletTypes = tabletTypes == null ? List.of() : List.copyOf(tabletTypes);
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(subType, "subType");
    options = options == null || options.isBlank() ? "{}" : options.strip();
    if (!options.startsWith("{") || !options.endsWith("}")) {
      throw PointsmanException.invalidArgument("options of new workflow '" + workflow + "' are not a JSON object: " + options);
    }
  }

  /** A workflow without options. */
  public NewWorkflow(String workflow, List<BinlogSource> sources, List<String> cells, List<TabletType> tabletTypes,
      WorkflowType type, WorkflowSubType subType, boolean autoStart, boolean stopAfterCopy) {
    this(workflow, sources, cells, tabletTypes, type, subType, autoStart, stopAfterCopy, "{}");
  }
}
