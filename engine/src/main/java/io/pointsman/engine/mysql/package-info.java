/**
 * Everything pointsman does on the shard primaries' MySQL or MariaDB.
 *
 * <ul>
 *   <li>Where: {@link io.pointsman.engine.mysql.PrimaryResolver} reads a shard's primary from the topology
 *       into a {@link io.pointsman.engine.mysql.PrimaryEndpoint}; {@link io.pointsman.engine.mysql.ConnectionPools}
 *       connects to it with the worker's {@link io.pointsman.engine.mysql.MySqlOptions} (never with anything
 *       from a workflow input).
 *   <li>What is there: {@link io.pointsman.engine.mysql.SidecarSchema} creates Vitess's sidecar tables and
 *       pointsman's {@code lock_fence}; {@link io.pointsman.engine.mysql.PrimaryPositions} reads positions.
 *   <li>Guarded changes: {@link io.pointsman.engine.mysql.MySqlFence} runs each change in one transaction
 *       that first checks the fencing tokens of the caller's locks;
 *       {@link io.pointsman.engine.mysql.VReplicationStreams}, {@link io.pointsman.engine.mysql.ReshardingJournals}
 *       and {@link io.pointsman.engine.mysql.WriteBarrier} change nothing without it.
 *   <li>Waiting: {@link io.pointsman.engine.mysql.StreamWaiter} waits for a stream to reach a position.
 * </ul>
 *
 * <p>Every statement names its database explicitly; names are validated and quoted by
 * {@link io.pointsman.engine.mysql.SqlIdentifiers}, values go through statement parameters. The SQL is
 * the common dialect of MySQL 8 and MariaDB 10.6+.
 */
package io.pointsman.engine.mysql;
