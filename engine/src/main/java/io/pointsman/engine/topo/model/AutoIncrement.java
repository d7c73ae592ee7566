package io.pointsman.engine.topo.model;

/** vschema.AutoIncrement. */
public record AutoIncrement(String column, String sequence) {}
