/**
 * The shard-primary ports served by writing the primaries' MySQL directly: the sandbox's world,
 * where no vttablet runs and pointsman's own stream runner reads {@code _vt} tables it is told
 * nothing about. Each adapter resolves the shard's primary from the topology on every call and
 * hands the endpoint to the {@code io.pointsman.engine.mysql} class that does the work.
 */
package io.pointsman.engine.primary.direct;
