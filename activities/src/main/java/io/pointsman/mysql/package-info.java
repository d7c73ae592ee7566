/**
 * Everything pointsman does on the shard primaries' MySQL or MariaDB.
 *
 * <ul>
 *   <li>Where: {@link io.pointsman.mysql.PrimaryResolver} reads a shard's primary from the topology
 *       into a {@link io.pointsman.mysql.PrimaryEndpoint}; {@link io.pointsman.mysql.ConnectionPools}
 *       connects to it with the worker's {@link io.pointsman.mysql.MySqlOptions} (never with anything
 *       from a workflow input).
 *   <li>What is there: {@link io.pointsman.mysql.SidecarSchema} creates Vitess's sidecar tables and
 *       pointsman's {@code lock_fence}; {@link io.pointsman.mysql.PrimaryPositions} reads positions.
 *   <li>Guarded changes: {@link io.pointsman.mysql.MySqlFence} runs each change in one transaction
 *       that first checks the fencing tokens of the caller's locks;
 *       {@link io.pointsman.mysql.VReplicationStreams}, {@link io.pointsman.mysql.ReshardingJournals}
 *       and {@link io.pointsman.mysql.WriteBarrier} change nothing without it.
 *   <li>Waiting: {@link io.pointsman.mysql.StreamWaiter} waits for a stream to reach a position.
 * </ul>
 *
 * <p>Every statement names its database explicitly; names are validated and quoted by
 * {@link io.pointsman.mysql.SqlIdentifiers}, values go through statement parameters. The SQL is
 * the common dialect of MySQL 8 and MariaDB 10.6+.
 */
package io.pointsman.mysql;
