package io.pointsman.engine.lock;

import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.lock.LockToken;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A lock held through {@link EtcdLockService}: its token, its renewer, and the loss it may suffer. */
final class HeldEtcdLock implements HeldLock, LockRenewer.Sink {
  private static final Logger log = LoggerFactory.getLogger(HeldEtcdLock.class);

  /** Ways a handle stops holding a lock without the lock being lost. */
  private enum Ending {
    RELEASED("was released"),
    TAKEN_OVER("was taken over by a later attach in this process"),
    DETACHED("was detached: this process no longer renews it");

    final String description;

    Ending(String description) {
      this.description = description;
    }
  }

  private final EtcdLockService service;
  private final LockToken token;
  private final LockRenewer renewer;
  private final LockListener listener;
  private final Executor events;
  private final AtomicReference<LockLoss> loss = new AtomicReference<>();
  private final CompletableFuture<LockLoss> lossFuture = new CompletableFuture<>();
  private final CompletableFuture<Void> releasedFuture = new CompletableFuture<>();
  /** Null while this handle holds the lock. */
  private final AtomicReference<Ending> stopped = new AtomicReference<>();

  HeldEtcdLock(EtcdLockService service, LockToken token, LockRenewer renewer, LockListener listener,
      Executor events) {
    this.service = service;
    this.token = token;
    this.renewer = renewer;
    this.listener = listener;
    this.events = events;
  }

  @Override
  public LockToken token() {
    return token;
  }

  @Override
  public boolean isHeld() {
    return stopped.get() == null && loss.get() == null && renewer.withinDeadlines();
  }

  @Override
  public void checkHeld() {
    Ending ending = stopped.get();
    if (ending != null) {
      throw new LockLostException(token.key(), "lock on " + token.resource() + " " + ending.description);
    }
    LockLoss seen = loss.get();
    if (seen == null && !renewer.withinDeadlines()) {
      seen = loss.get();
    }
    if (seen != null) {
      throw seen.toException();
    }
    LockStatus status = service.checkAndRenew(token, renewer);
    if (!status.held()) {
      renewer.lose(status.lossReason(), status.message());
      throw new LockLoss(token, status.lossReason(), status.message()).toException();
    }
  }

  @Override
  public CompletableFuture<LockLoss> lossFuture() {
    return lossFuture.copy();
  }

  @Override
  public CompletableFuture<Void> releasedFuture() {
    return releasedFuture.copy();
  }

  @Override
  public void detach() {
    if (stopped.compareAndSet(null, Ending.DETACHED)) {
      renewer.stop();
      service.forget(this);
      if (loss.get() != null) {
        return; // already reported as lost; nothing was renewing it
      }
      log.info("Stopped renewing the lock on {} in this process without revoking lease {}; it expires within {} "
          + "unless another holder attaches to it", token.resource(), token.leaseId(), token.ttl());
    }
  }

  @Override
  public void detachAfter(Duration grace) {
    Objects.requireNonNull(grace, "grace");
    if (grace.isNegative() || grace.isZero()) {
      detach();
    } else {
      service.detachLater(this, grace);
    }
  }

  @Override
  public void close() {
    Ending ending = stopped.get();
    if (ending != Ending.TAKEN_OVER && ending != Ending.DETACHED) {
      service.release(token);
    }
  }

  /** Stops renewal because the lock is being released; a release is not a loss. */
  void stopForRelease() {
    if (stopped.compareAndSet(null, Ending.RELEASED)) {
      renewer.stop();
      releasedFuture.complete(null);
    } else {
      renewer.stop();
    }
  }

  /**
   * Stops renewal because a later {@link EtcdLockService#attach} in this process renews the same
   * lease now. The lock is not lost, but this handle no longer owns it: closing it must not revoke
   * the lease from under the new handle (a stale activity attempt cleaning up, say).
   */
  void stopBecauseTakenOver() {
    stopped.compareAndSet(null, Ending.TAKEN_OVER);
    renewer.stop();
  }

  /** Ends renewal because the service is closing; the holder must hear it as a loss. */
  void stopBecauseServiceClosed() {
    renewer.lose(LockLoss.Reason.SERVICE_CLOSED,
        "the lock service was closed, so nothing in this process renews lease " + token.leaseId() + " any more");
  }

  long leaseId() {
    return token.leaseId();
  }

  @Override
  public void onLoss(LockLoss.Reason reason, String message) {
    LockLoss lost = new LockLoss(token, reason, message);
    if (!loss.compareAndSet(null, lost)) {
      return;
    }
    log.warn("Lock on {} LOST ({}): {} [key {}, lease {}, create revision {}]",
        token.resource(), reason, message, token.key(), token.leaseId(), token.createRevision());
    service.forget(this);
    try {
      events.execute(() -> tellHolder(lost));
    } catch (RejectedExecutionException e) {
      // the service is closing and its event threads are gone; the holder must still hear of it
      tellHolder(lost);
    }
  }

  private void tellHolder(LockLoss lost) {
    lossFuture.complete(lost);
    try {
      listener.onLockLost(lost);
    } catch (RuntimeException e) {
      log.error("Listener for the loss of the lock on {} failed", token.resource(), e);
    }
  }
}
