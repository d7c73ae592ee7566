package io.pointsman.engine.primary;

import io.pointsman.api.model.TabletType;
import java.util.List;
import java.util.Optional;

/**
 * What Vitess checks before a write switch that will start reverse replication
 * (docs/vitess-switching.md §11, step 1): that the source primaries may manage the reverse
 * workflow's sidecar rows, and that each target shard has a tablet the reverse streams can read
 * from. Read-only; each answer is a reason the switch must not start, or empty.
 */
public interface StreamReadinessPort {

  /** Why the shard's primary cannot manage VReplication's sidecar tables, or empty when it can. */
  Optional<String> vreplicationPermissionProblem(ShardRef shard);

  /**
   * Why no tablet of the shard could be streamed from, or empty when one can.
   *
   * @param cells the cells to look in (aliases already read as their cells); empty for the primary's cell
   * @param tabletTypes the tablet types the streams may read from
   */
  Optional<String> noTabletToStreamFrom(ShardRef shard, List<String> cells, List<TabletType> tabletTypes);
}
