package io.pointsman.api.model;

/**
 * One stream of the workflow: the row {@code id} in {@code _vt.vreplication} on the primary of
 * {@code targetShard}, replicating from {@code sourceShard} of the source keyspace.
 */
public record StreamRef(String targetShard, long id, String sourceShard) {}
