package io.pointsman.engine.topo;

/** A record's revisions in etcd, read without its value; {@code modRevision} is Vitess's topo Version. */
public record RecordRevision(long modRevision, long createRevision) {}
