package io.pointsman.engine.primary.direct;

import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.SavedStream;
import io.pointsman.engine.mysql.NewStream;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.StreamsPort;
import java.util.Collection;
import java.util.List;

/** {@link StreamsPort} on the primary's {@code _vt.vreplication}, written directly (fenced in one transaction). */
final class DirectStreams extends DirectPort implements StreamsPort {
  DirectStreams(Shared shared) {
    super(shared);
  }

  @Override
  public List<Stream> read(ShardRef shard, String workflow) {
    return streams.read(at(shard), workflow);
  }

  @Override
  public List<Stream> readAll(ShardRef shard) {
    return streams.readAll(at(shard));
  }

  @Override
  public List<SavedStream> save(ShardRef shard, String workflow) {
    return saved.save(at(shard), workflow);
  }

  @Override
  public void restore(ShardRef shard, String workflow, List<SavedStream> rows, LockSet locks) {
    saved.restore(at(shard), workflow, rows, locks);
  }

  @Override
  public List<Integer> replace(ShardRef shard, String workflow, List<NewStream> news, LockSet locks) {
    return streams.replace(at(shard), workflow, news, locks);
  }

  @Override
  public int stop(ShardRef shard, String workflow, String message, LockSet locks) {
    return streams.stop(at(shard), workflow, message, locks);
  }

  @Override
  public int stop(ShardRef shard, Collection<Integer> ids, String message, LockSet locks) {
    return streams.stop(at(shard), ids, message, locks);
  }

  /**
   * Nothing to do: the sandbox's stream runner records every position it passes, filtered-out
   * transactions included, so a plain wait reaches the position as soon as the stream does.
   */
  @Override
  public void stopAt(ShardRef shard, int id, Position pos, LockSet locks) {
  }

  @Override
  public int start(ShardRef shard, String workflow, LockSet locks) {
    return streams.start(at(shard), workflow, locks);
  }

  @Override
  public int freeze(ShardRef shard, String workflow, LockSet locks) {
    return streams.freeze(at(shard), workflow, locks);
  }

  @Override
  public List<Integer> insert(ShardRef shard, List<NewStream> news, LockSet locks) {
    return streams.insert(at(shard), news, locks);
  }

  @Override
  public int delete(ShardRef shard, String workflow, LockSet locks) {
    return streams.delete(at(shard), workflow, locks);
  }
}
