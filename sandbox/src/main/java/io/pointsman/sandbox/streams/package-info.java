/**
 * The sandbox's stand-in for Vitess's vreplication engine: {@link io.pointsman.sandbox.streams.StreamRunner}
 * executes the {@code _vt.vreplication} rows of the primaries it serves.
 *
 * <p>Each stream in state Init, Copying or Running gets a worker. A stream without a position (or
 * with {@code copy_state} rows left) first copies: the selected source tables are read from one
 * consistent snapshot whose GTID position MariaDB reports ({@code binlog_snapshot_file/position},
 * {@code BINLOG_GTID_POS}), and the rows of the stream's key range are written into the target in
 * batches. Then the source binlog is applied from the stream's position through a binlog client,
 * one target transaction per source transaction, filtered by database, filter rules and key range
 * (Vitess's {@code hash} vindex). Every write first locks the stream row and checks that the
 * stream may still write, so nothing is applied after a stop committed; {@code pos},
 * {@code transaction_timestamp} and {@code time_updated} change in the same transaction.
 * {@code stop_pos} stops a stream with Vitess's message; permanent failures put it in state Error
 * with the reason; connection failures are retried with backoff. Apply sessions are marked as a
 * stream's, so a {@link io.pointsman.engine.mysql.WriteBarrier} on the target lets them through.
 *
 * <p>Limits: MariaDB sources only (GTID positions in MariaDB's form); filters are
 * {@code select * from t [where in_keyrange(...)]} or a key range for {@code /regexp} rules, with
 * the {@code hash} vindex only; DDL in the source binlog is ignored or stops the stream
 * ({@code on_ddl} IGNORE or STOP); an interrupted copy starts over from a new snapshot without
 * removing rows the earlier attempt copied.
 */
package io.pointsman.sandbox.streams;
