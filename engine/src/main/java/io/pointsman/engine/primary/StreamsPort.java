package io.pointsman.engine.primary;

import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.SavedStream;
import io.pointsman.engine.mysql.NewStream;
import io.pointsman.engine.mysql.Stream;
import java.util.Collection;
import java.util.List;

/**
 * The VReplication streams on a shard's primary, changed the way a traffic switch does. Every change
 * is fenced with the caller's locks ({@link FencePort}) and idempotent: running it again finds its
 * work done. Direct MySQL: {@link io.pointsman.engine.mysql.VReplicationStreams}.
 */
public interface StreamsPort {

  /** The workflow's streams on the shard's primary, by id; empty when it has none there. */
  List<Stream> read(ShardRef shard, String workflow);

  /** Every workflow's streams on the shard's primary (in its database), by id. */
  List<Stream> readAll(ShardRef shard);

  /** The workflow's streams as they are now, to be put back by {@link #restore}. */
  List<SavedStream> save(ShardRef shard, String workflow);

  /**
   * Makes the workflow's streams the saved ones again: streams of that name not saved go, saved ones
   * come back with their source, position, state and message. Idempotent.
   */
  void restore(ShardRef shard, String workflow, List<SavedStream> saved, LockSet locks);

  /** Replaces the workflow's streams with new ones (reverse streams at a position); returns their ids. */
  List<Integer> replace(ShardRef shard, String workflow, List<NewStream> streams, LockSet locks);

  /** Stops the workflow's streams with a message; returns how many streams the workflow has there. */
  int stop(ShardRef shard, String workflow, String message, LockSet locks);

  /** Stops the given streams with a message; returns how many of them exist there. */
  int stop(ShardRef shard, Collection<Integer> ids, String message, LockSet locks);

  /**
   * Has stream {@code id} run on to {@code pos} and stop there by itself (its stop position), as a
   * switch's catch-up wants: a stream saves reaching a position at once when it is its stop
   * position, where otherwise a position reached through transactions it filters out entirely is
   * saved only after a second of idleness. Starts the stream again if an earlier pass stopped it
   * short; a FROZEN stream is refused. The stream restarts to take the position, so its source
   * tablet must be serving (a MoveTables' source is; a Reshard's is not once its writes stopped).
   */
  void stopAt(ShardRef shard, int id, Position pos, LockSet locks);

  /** Starts the workflow's streams: Running, message cleared, no stop position. */
  int start(ShardRef shard, String workflow, LockSet locks);

  /** Marks the workflow's streams FROZEN (its writes were switched). */
  int freeze(ShardRef shard, String workflow, LockSet locks);

  /** Inserts streams (reverse streams at a given position); returns their ids in order. */
  List<Integer> insert(ShardRef shard, List<NewStream> streams, LockSet locks);

  /** Deletes the workflow's streams; returns how many went (0: already done). */
  int delete(ShardRef shard, String workflow, LockSet locks);
}
