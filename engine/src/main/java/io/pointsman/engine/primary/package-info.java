/**
 * What a traffic switch needs from a shard's primary, as small ports keyed by {@link
 * io.pointsman.engine.primary.ShardRef}: streams, positions, the journal, the write gate, tables,
 * sequences and the fence. Two worlds serve them: the direct-MySQL classes of {@code io.pointsman.engine.mysql} (the
 * sandbox, whose primaries pointsman writes itself) and the tablet adapters of {@code
 * io.pointsman.engine.primary.tablet} (real Vitess, where vttablet owns the {@code _vt} tables and
 * changes go through its tablet-manager RPCs).
 */
package io.pointsman.engine.primary;
