package io.pointsman.engine.topo.model;

/** topodata.ShardTabletControl inside a SrvKeyspace partition. */
public record ShardTabletControl(String name, KeyRange keyRange, boolean queryServiceDisabled) {}
