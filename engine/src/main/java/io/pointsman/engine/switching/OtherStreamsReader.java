package io.pointsman.engine.switching;

import io.pointsman.api.model.MigrationInfo;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.primary.PrimaryPorts;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.StreamsPort;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.VSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Reads the streams of every workflow where a Reshard step would strand them, and has
 * {@link OtherWorkflowStreams} judge them. Read-only.
 */
public final class OtherStreamsReader {
  private final TopologyStore store;
  private final Function<ShardRef, PrimaryPorts> primaries;

  /** @param primaries what serves each shard's primary (vttablet's RPCs or its MySQL) */
  public OtherStreamsReader(TopologyStore store, Function<ShardRef, PrimaryPorts> primaries) {
    this.store = store;
    this.primaries = primaries;
  }

  /** Refuses switching the writes of Reshard {@code w} while other workflows run on its source shards. */
  public void checkWriteSwitch(MigrationInfo w) {
    OtherWorkflowStreams.checkWriteSwitch(w, onSources(w), sourceVSchema(w));
  }

  /** The streams of every workflow on the primaries of {@code w}'s source shards. */
  List<OtherWorkflowStreams.Located> onSources(MigrationInfo w) {
    return onPrimaries(w.sourceShards().stream().map(s -> new ShardRef(w.sourceKeyspace(), s)).toList());
  }

  /** The source keyspace's VSchema, to tell reference tables; null when it has none. */
  VSchema sourceVSchema(MigrationInfo w) {
    return store.get(store.keys().vschema(w.sourceKeyspace())).map(Versioned::value).orElse(null);
  }

  /** Refuses deleting Reshard {@code info}'s source shards while other workflows' streams need them. */
  public void checkSourceShardsDeletion(MigrationInfo info) {
    List<ShardRef> shards = new ArrayList<>();
    for (String keyspace : store.listKeyspaces()) {
      for (String shard : store.listShards(keyspace)) {
        shards.add(new ShardRef(keyspace, shard));
      }
    }
    OtherWorkflowStreams.checkSourceShardsDeletion(info, onPrimaries(shards));
  }

  /** The streams on every one of the shards' primaries, read at once (a round trip to each). */
  private List<OtherWorkflowStreams.Located> onPrimaries(List<ShardRef> shards) {
    return FanOut.map(shards, ref -> onPrimary(ref.keyspace(), ref.shard())).stream().flatMap(List::stream).toList();
  }

  private List<OtherWorkflowStreams.Located> onPrimary(String keyspace, String shard) {
    Shard record = store.getRequired(store.keys().shard(keyspace, shard)).value();
    if (record.primaryAlias() == null) {
      return List.of(); // a shard without a primary runs no streams
    }
    List<OtherWorkflowStreams.Located> out = new ArrayList<>();
    for (Stream s : streams(keyspace, shard).readAll(new ShardRef(keyspace, shard))) {
      out.add(new OtherWorkflowStreams.Located(keyspace, shard, s));
    }
    return out;
  }

  private StreamsPort streams(String keyspace, String shard) {
    return primaries.apply(new ShardRef(keyspace, shard)).streams();
  }
}
