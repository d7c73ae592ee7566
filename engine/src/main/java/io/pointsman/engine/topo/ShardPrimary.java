package io.pointsman.engine.topo;

import io.pointsman.api.model.PrimaryTerm;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Shard record, with the Tablet record of the primary a caller expects read beside it rather than
 * after it: one etcd round trip instead of two for a call bound to a planned primary (every call of
 * every step in the write window). The record read beside is used only when the Shard record names
 * that very tablet; otherwise {@link #primaryTablet} reads the tablet the Shard record names.
 *
 * @param shard the Shard record
 * @param expected the tablet the caller expected, if its term names one
 * @param expectedTablet that tablet's record as read beside the Shard record, if it exists
 */
public record ShardPrimary(Shard shard, Optional<TabletAlias> expected, Optional<Tablet> expectedTablet) {
  public ShardPrimary {
    Objects.requireNonNull(shard, "shard");
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(expectedTablet, "expectedTablet");
  }

  /**
   * Reads the Shard record of {@code keyspace/shard} and, when {@code expected} names a tablet, that
   * tablet's record at the same time, with {@code alongside} (other reads the caller needs now).
   * When several reads fail, the first one's failure is thrown, {@code alongside} first.
   *
   * @param expected the primary the caller expects; null, or a term that names no tablet, for none
   */
  public static ShardPrimary read(TopologyStore topo, String keyspace, String shard, PrimaryTerm expected,
      Runnable... alongside) {
    TopoKeys keys = topo.keys();
    Optional<TabletAlias> guess = expected == null ? Optional.empty() : TabletAlias.tryParse(expected.alias());
    AtomicReference<Shard> read = new AtomicReference<>();
    AtomicReference<Optional<Tablet>> guessed = new AtomicReference<>(Optional.empty());
    List<Runnable> reads = new ArrayList<>(List.of(alongside));
    reads.add(() -> read.set(topo.getRequired(keys.shard(keyspace, shard)).value()));
    guess.ifPresent(alias -> reads.add(() -> guessed.set(topo.get(keys.tablet(alias)).map(v -> v.value()))));
    FanOut.forEach(reads, Runnable::run);
    return new ShardPrimary(read.get(), guess, guessed.get());
  }

  /**
   * The record of the tablet the Shard record names as primary: the one read beside it when it is
   * the expected tablet, else read now.
   *
   * @throws io.pointsman.api.errors.PointsmanException NOT_FOUND when that record is missing
   */
  public Tablet primaryTablet(TopologyStore topo) {
    TabletAlias named = Objects.requireNonNull(shard.primaryAlias(), "the shard names no primary");
    if (expected.isPresent() && expected.get().equals(named) && expectedTablet.isPresent()) {
      return expectedTablet.get();
    }
    return topo.getRequired(topo.keys().tablet(named)).value();
  }
}
