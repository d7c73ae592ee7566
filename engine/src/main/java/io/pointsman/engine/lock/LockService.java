package io.pointsman.engine.lock;

import io.pointsman.api.lock.LockToken;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * Topology locks that Vitess and pointsman both honour (docs/locks.md): a lock is an etcd key under
 * {@code <resource dir>/locks/} attached to a lease, granted in order of creation. A held lock keeps
 * itself alive until it is released, lost or held longer than its {@link LockOptions#maxHold()};
 * losing it is reported, never silent.
 */
public interface LockService {

  /**
   * Locks a keyspace, waiting in line behind earlier holders (pointsman or Vitess).
   *
   * @param keyspace the keyspace name; it must exist (have any key below its directory)
   * @param options TTL, deadlines, holder and listener of the lock
   * @return the held lock, already renewing itself
   * @throws io.pointsman.api.errors.PointsmanException INVALID_ARGUMENT for a bad name (before etcd is
   *     asked), NOT_FOUND when the keyspace does not exist, LOCK_TIMEOUT when the lock was not
   *     granted within {@link LockOptions#acquireTimeout()}, UNAVAILABLE when etcd failed or the
   *     calling thread was interrupted
   */
  HeldLock lockKeyspace(String keyspace, LockOptions options);

  /**
   * Locks one shard of a keyspace; the same rules as {@link #lockKeyspace}, and the shard must exist.
   *
   * @param keyspace the keyspace name
   * @param shard the shard name, e.g. {@code -80}
   * @param options TTL, deadlines, holder and listener of the lock
   * @return the held lock, already renewing itself
   */
  HeldLock lockShard(String keyspace, String shard, LockOptions options);

  /**
   * Takes a named lock ({@code internal/named_locks/<name>}), which needs nothing to exist first.
   * The workflow lock is named {@code <targetKeyspace>/<workflow>}.
   *
   * @param name '/'-separated parts, each a valid workflow-style name
   * @param options TTL, deadlines, holder and listener of the lock
   * @return the held lock, already renewing itself
   */
  HeldLock lockNamed(String name, LockOptions options);

  /**
   * Takes over a lock acquired elsewhere (typically by a worker that crashed): checks on the server
   * that its lease is alive and its key still has the token's create revision, renews it, and
   * renews it from then on. The TTL is the token's; {@code options} supply the renew interval
   * (which must be at most a third of the token's TTL), the max hold (counted from
   * {@link LockToken#acquiredAt()}) and the listener. A handle this service already has for the
   * same lease stops renewing and lets the new one own the lock.
   *
   * @param token the proof of the lock, as returned by an earlier acquisition
   * @param options renewal settings and listener; {@link LockOptions#ttl()} is ignored
   * @param now the time now on the clock that stamped {@link LockToken#acquiredAt()}: another
   *     process's wall clock may be minutes off or jump, which would end or stretch the max hold
   * @return a handle renewing the same lease
   * @throws io.pointsman.api.errors.LockLostException when the lease or the key is gone, or the lock
   *     was held longer than the max hold already
   * @throws io.pointsman.api.errors.PointsmanException UNAVAILABLE when etcd could not be asked
   */
  HeldLock attach(LockToken token, LockOptions options, Instant now);

  /**
   * {@link #attach(LockToken, LockOptions, Instant)} for several locks, all or none: etcd is asked
   * about all of them together, so taking them over costs one round trip, not one per lock (the
   * holder of a write window's shard locks attaches while the switch waits for it). When one cannot
   * be taken over the call fails and attaches none; the handles this service had keep renewing.
   *
   * @param tokens the locks, each as returned by an earlier acquisition
   * @param options the renewal settings of each lock
   * @param now the time now on the clock that stamped the tokens
   * @return the handles, in the order of {@code tokens}
   * @throws io.pointsman.api.errors.LockLostException when a lease or a key is gone, or a lock was
   *     held longer than its max hold already
   * @throws io.pointsman.api.errors.PointsmanException UNAVAILABLE when etcd could not be asked
   */
  List<HeldLock> attachAll(List<LockToken> tokens, Function<LockToken, LockOptions> options, Instant now);

  /** {@link #attach(LockToken, LockOptions, Instant)} for a token stamped by this process's wall clock. */
  default HeldLock attach(LockToken token, LockOptions options) {
    return attach(token, options, Instant.now());
  }

  /**
   * Asks etcd whether the lock is still held: the lease answers a keep-alive (which renews it) and
   * the key still exists with the token's create revision.
   *
   * @param token the lock to check
   * @return held, or lost with the reason
   * @throws io.pointsman.api.errors.PointsmanException UNAVAILABLE when etcd did not answer in time
   */
  LockStatus check(LockToken token);

  /**
   * {@link #check} for several locks at once; etcd is asked about all of them together, so the
   * answer takes one round trip, not one per lock.
   *
   * @return the statuses, in the order of {@code tokens}
   * @throws io.pointsman.api.errors.PointsmanException UNAVAILABLE when etcd did not answer in time
   */
  default List<LockStatus> checkAll(List<LockToken> tokens) {
    return tokens.stream().map(this::check).toList();
  }

  /**
   * {@link #checkAll}, asked now and answered later: the caller reads meanwhile and takes the
   * answer before it changes anything. Unless overridden, asks and waits for the answer now.
   */
  default LockCheck ask(List<LockToken> tokens) {
    List<LockStatus> answered = checkAll(tokens);
    return () -> answered;
  }

  /**
   * Releases the lock by revoking its lease, which deletes the key and wakes the next waiter. Stops
   * any renewal this service runs for it. Releasing a lock whose lease is already gone is fine.
   *
   * @param token the lock to release
   * @throws io.pointsman.api.errors.PointsmanException UNAVAILABLE when etcd did not confirm in time;
   *     the lock then expires within its TTL anyway, since nothing renews it any more
   */
  void release(LockToken token);
}
