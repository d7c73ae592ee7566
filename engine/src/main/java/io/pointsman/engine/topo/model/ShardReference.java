package io.pointsman.engine.topo.model;

/** topodata.ShardReference inside a SrvKeyspace partition. */
public record ShardReference(String name, KeyRange keyRange) {}
