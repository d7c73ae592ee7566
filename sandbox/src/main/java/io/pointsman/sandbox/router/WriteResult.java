package io.pointsman.sandbox.router;

import java.time.Duration;

/**
 * A statement that succeeded.
 *
 * @param updateCount rows the statement changed, as MySQL reports them
 * @param target where it finally ran
 * @param attempts how many times it was sent to a primary (more than one after a primary refused it)
 * @param buffered how long it waited in the buffer for the topology to change; zero if never held
 */
public record WriteResult(long updateCount, Target target, int attempts, Duration buffered) {}
