package io.pointsman.engine.topo.model;

/** topodata.CellInfo: where a cell's topology lives. */
public record CellInfo(String serverAddress, String root) {}
