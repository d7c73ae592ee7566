package io.pointsman.activities;

import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.primary.PrimaryPorts;
import io.pointsman.engine.primary.ShardRef;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Vitess's checks before a write switch that starts reverse replication, asked before anything
 * changes: each source primary may manage the reverse workflow's sidecar rows, and each target
 * shard has a tablet the reverse streams can read from, in the cells asked (else the workflow's
 * cells, else the primary's) and of the workflow's tablet types (vitessio/vitess#16794).
 */
final class ReverseReplicationCheck {
  /** Vitess's tablet picker's types when a workflow names none. */
  static final List<TabletType> DEFAULT_TYPES = List.of(TabletType.REPLICA, TabletType.RDONLY, TabletType.PRIMARY);

  private final Function<ShardRef, PrimaryPorts> ports;
  private final UnaryOperator<List<String>> cellsOf;

  /** @param cellsOf the cells named, each cell alias read as its cells (TopologySwitcher#cells) */
  ReverseReplicationCheck(Function<ShardRef, PrimaryPorts> ports, UnaryOperator<List<String>> cellsOf) {
    this.ports = Objects.requireNonNull(ports, "ports");
    this.cellsOf = Objects.requireNonNull(cellsOf, "cellsOf");
  }

  /** Why the switch must not start, or "" when it may. */
  String problems(MigrationInfo w, List<String> cells) {
    List<String> out = new ArrayList<>();
    List<Optional<String>> permissions = FanOut.map(w.sourceShards(), shard -> {
      ShardRef source = new ShardRef(w.sourceKeyspace(), shard);
      return ports.apply(source).readiness().vreplicationPermissionProblem(source);
    });
    permissions.forEach(p -> p.ifPresent(why -> out.add("primary tablets are not able to fully manage the reverse"
        + " vreplication workflow in the " + w.sourceKeyspace() + " keyspace: " + why)));
    ShardRef first = new ShardRef(w.targetKeyspace(), w.targetShards().get(0));
    Optional<Stream> stream = ports.apply(first).streams().read(first, w.workflow()).stream().findFirst();
    List<String> named = cells.isEmpty() ? stream.map(s -> split(s.cell())).orElse(List.of()) : cells;
    // none named: each shard's primary's cell, which the port knows
    List<String> where = named.isEmpty() ? List.of() : cellsOf.apply(named);
    List<TabletType> types = stream.map(s -> tabletTypes(s.tabletTypes())).orElse(DEFAULT_TYPES);
    List<Optional<String>> tablets = FanOut.map(w.targetShards(), shard -> {
      ShardRef target = new ShardRef(w.targetKeyspace(), shard);
      return ports.apply(target).readiness().noTabletToStreamFrom(target, where, types);
    });
    tablets.forEach(t -> t.ifPresent(why -> out.add("no tablets were available to stream from in the "
        + w.targetKeyspace() + " keyspace: " + why)));
    return String.join("; ", out);
  }

  /** A stream's {@code tablet_types}: {@code in_order:REPLICA,PRIMARY}, {@code replica,primary}, or empty. */
  static List<TabletType> tabletTypes(String option) {
    String s = option == null ? "" : option.strip();
    if (s.startsWith("in_order:")) {
      s = s.substring("in_order:".length());
    }
    List<TabletType> out = split(s).stream().map(TabletType::lookup).flatMap(Optional::stream).distinct().toList();
    return out.isEmpty() ? DEFAULT_TYPES : out;
  }

  private static List<String> split(String csv) {
    return csv == null ? List.of()
        : Arrays.stream(csv.split(",")).map(String::strip).filter(c -> !c.isEmpty()).toList();
  }
}
