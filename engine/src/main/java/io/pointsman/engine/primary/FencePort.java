package io.pointsman.engine.primary;

import io.pointsman.api.lock.LockSet;
import java.util.OptionalLong;

/**
 * Fencing of changes on a shard's primary with the etcd locks they are made under (docs/locks.md):
 * each lock resource's row holds the highest token any change there was made under, so a newer
 * holder's first change keeps every older holder out. Direct MySQL:
 * {@link io.pointsman.engine.mysql.MySqlFence}, which checks and changes in one transaction.
 */
public interface FencePort {

  /**
   * Raises each lock's fence on the shard's primary to our token and checks no higher one is there.
   *
   * @param action what is about to be changed, for messages
   * @throws io.pointsman.api.errors.LockLostException when a lock is no longer held or a fence holds
   *     a higher token; nothing was changed then
   */
  void raise(ShardRef shard, LockSet locks, String action);

  /** The highest token recorded there for a lock resource (a lock key without {@code /locks/<lease>}). */
  OptionalLong highestToken(ShardRef shard, String resource);
}
