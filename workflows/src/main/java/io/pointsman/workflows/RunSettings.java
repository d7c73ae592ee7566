package io.pointsman.workflows;

import java.time.Duration;

/** How a locked action runs, as its request says: a dry run or for real, and the TTL and longest hold of its locks. */
record RunSettings(boolean dryRun, Duration lockTtl, Duration maxLockHold) {}
