package io.pointsman.cli;

import io.pointsman.api.request.TimeLimits;
import picocli.CommandLine.Option;

/** pointsman's own lock flags, on every action: the TTL and the renewal budget of its topology locks. */
final class LockFlags {
  @Option(names = "--lock-ttl", paramLabel = "DURATION", defaultValue = TimeLimits.DEFAULT_LOCK_TTL_TEXT,
      description = "TTL of every topology lock the action takes. pointsman renews its locks until it releases "
          + "them, so this only bounds how long the lock of a crashed worker outlives it. Minimum "
          + TimeLimits.MIN_LOCK_TTL_TEXT + " (default: ${DEFAULT-VALUE}).")
  String lockTtl;

  @Option(names = "--max-lock-hold", paramLabel = "DURATION",
      defaultValue = TimeLimits.DEFAULT_MAX_LOCK_HOLD_TEXT,
      description = "Stop renewing the locks after this long, so a stuck action cannot hold them forever; "
          + "must exceed --lock-ttl (default: ${DEFAULT-VALUE}).")
  String maxLockHold;
}
