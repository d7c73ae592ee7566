package io.pointsman.engine.lock;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.request.TimeLimits;
import java.time.Duration;
import java.util.Objects;

/**
 * How one lock is taken and kept. Immutable; build it with {@link #builder()}, where it is
 * validated. The TTL, acquire timeout and max hold default to an action's ({@link TimeLimits}). The
 * checks here are only what the lock service itself needs (positive durations, whole-second TTLs,
 * renewals at least three per TTL); an action's own bounds ({@code TimeLimitRules}) are checked
 * once, where its request is decoded.
 */
public final class LockOptions {

  private final String action;
  private final Duration ttl;
  private final Duration acquireTimeout;
  private final Duration maxHold;
  private final Duration renewInterval;
  private final LockHolder holder;
  private final LockListener listener;
  private final LockWait.Listener waitListener;

  private LockOptions(Builder b, Duration ttl) {
    this.action = b.action;
    this.ttl = ttl;
    this.acquireTimeout = b.acquireTimeout;
    this.maxHold = b.maxHold;
    this.renewInterval = b.renewInterval;
    this.holder = b.holder;
    this.listener = b.listener;
    this.waitListener = b.waitListener;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** What the lock is taken for, e.g. {@code SwitchWrites}; Vitess's {@code Action} field. */
  public String action() {
    return action;
  }

  /** The lease TTL: whole seconds, at least one, because etcd leases count in seconds. */
  public Duration ttl() {
    return ttl;
  }

  public Duration acquireTimeout() {
    return acquireTimeout;
  }

  /** How long after acquisition renewal stops on purpose and the lock is reported lost. */
  public Duration maxHold() {
    return maxHold;
  }

  /** The interval between renewals of a lock taken with {@link #ttl()}: as set, or a third of the TTL. */
  public Duration renewInterval() {
    return renewIntervalFor(ttl);
  }

  public LockHolder holder() {
    return holder;
  }

  /** Told when the acquisition waits behind another holder. */
  public LockWait.Listener waitListener() {
    return waitListener;
  }

  public LockListener listener() {
    return listener;
  }

  /**
   * The renew interval for a lease of the given TTL, which differs from {@link #ttl()} when a lock
   * is re-attached: a renewal may fail and be retried before the lease runs out only if renewals
   * come at least three times per TTL.
   */
  Duration renewIntervalFor(Duration leaseTtl) {
    Duration third = leaseTtl.dividedBy(3);
    if (renewInterval == null) {
      return third;
    }
    if (renewInterval.compareTo(third) > 0) {
      throw PointsmanException.invalidArgument(
          "lock renew interval " + renewInterval + " must be at most a third of the TTL " + leaseTtl);
    }
    return renewInterval;
  }

  @Override
  public String toString() {
    return "LockOptions{action=" + action + ", ttl=" + ttl + ", acquireTimeout=" + acquireTimeout
        + ", maxHold=" + maxHold + ", renewInterval=" + renewInterval() + ", holder=" + holder + "}";
  }

  public static final class Builder {
    private String action;
    private Duration ttl = TimeLimits.DEFAULT_LOCK_TTL;
    private Duration acquireTimeout = TimeLimits.DEFAULT_LOCK_ACQUIRE_TIMEOUT;
    private Duration maxHold = TimeLimits.DEFAULT_MAX_LOCK_HOLD;
    private Duration renewInterval;
    private LockHolder holder = LockHolder.NONE;
    private LockListener listener = LockListener.NONE;
    private LockWait.Listener waitListener = LockWait.Listener.NONE;

    private Builder() {}

    /** Required. */
    public Builder action(String action) {
      this.action = action;
      return this;
    }

    /** Rounded up to whole seconds. */
    public Builder ttl(Duration ttl) {
      this.ttl = Objects.requireNonNull(ttl, "ttl");
      return this;
    }

    public Builder acquireTimeout(Duration acquireTimeout) {
      this.acquireTimeout = Objects.requireNonNull(acquireTimeout, "acquireTimeout");
      return this;
    }

    public Builder maxHold(Duration maxHold) {
      this.maxHold = Objects.requireNonNull(maxHold, "maxHold");
      return this;
    }

    /** At most a third of the TTL; unset means exactly a third. */
    public Builder renewInterval(Duration renewInterval) {
      this.renewInterval = Objects.requireNonNull(renewInterval, "renewInterval");
      return this;
    }

    public Builder holder(LockHolder holder) {
      this.holder = Objects.requireNonNull(holder, "holder");
      return this;
    }

    public Builder listener(LockListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    public Builder waitListener(LockWait.Listener waitListener) {
      this.waitListener = Objects.requireNonNull(waitListener, "waitListener");
      return this;
    }

    public LockOptions build() {
      if (action == null || action.isBlank()) {
        throw PointsmanException.invalidArgument("lock action is empty");
      }
      positive("lock TTL", ttl);
      positive("lock acquire timeout", acquireTimeout);
      positive("lock max hold", maxHold);
      if (renewInterval != null) {
        positive("lock renew interval", renewInterval);
      }
      LockOptions options = new LockOptions(this, roundUpToSeconds(ttl));
      options.renewInterval(); // validates the explicit interval against the rounded TTL
      return options;
    }

    private static Duration roundUpToSeconds(Duration d) {
      return Duration.ofSeconds(d.getNano() == 0 ? d.getSeconds() : d.getSeconds() + 1);
    }

    private static void positive(String what, Duration d) {
      if (d.isNegative() || d.isZero()) {
        throw PointsmanException.invalidArgument(what + " must be positive, got " + d);
      }
    }
  }
}
