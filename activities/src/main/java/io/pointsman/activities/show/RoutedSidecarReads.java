package io.pointsman.activities.show;

import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.primary.ShardRef;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/** {@link SidecarReads} from vttablet where one serves the shard's primary, from its MySQL elsewhere. */
public final class RoutedSidecarReads implements SidecarReads {
  private final Predicate<ShardRef> byTablet;
  private final SidecarReads tablet;
  private final SidecarReads direct;

  public RoutedSidecarReads(Predicate<ShardRef> byTablet, SidecarReads tablet, SidecarReads direct) {
    this.byTablet = Objects.requireNonNull(byTablet, "byTablet");
    this.tablet = Objects.requireNonNull(tablet, "tablet");
    this.direct = Objects.requireNonNull(direct, "direct");
  }

  private SidecarReads at(ShardRef shard) {
    return byTablet.test(shard) ? tablet : direct;
  }

  @Override
  public List<Stream> streams(ShardRef shard, String workflow) {
    return at(shard).streams(shard, workflow);
  }

  @Override
  public List<CopyStateRow> copyStates(ShardRef shard, Collection<Integer> streamIds) {
    return at(shard).copyStates(shard, streamIds);
  }

  @Override
  public List<LogRow> logs(ShardRef shard, Collection<Integer> streamIds) {
    return at(shard).logs(shard, streamIds);
  }

  @Override
  public Map<String, TableSize> tableSizes(ShardRef shard, Collection<String> tables) {
    return at(shard).tableSizes(shard, tables);
  }
}
