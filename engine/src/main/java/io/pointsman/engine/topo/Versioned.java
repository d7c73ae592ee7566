package io.pointsman.engine.topo;

/**
 * A record as read from etcd, with the revisions that guard a later write: {@code modRevision} is
 * Vitess's topo Version.
 */
public record Versioned<T>(RecordKey<T> key, T value, long modRevision, long createRevision) {}
