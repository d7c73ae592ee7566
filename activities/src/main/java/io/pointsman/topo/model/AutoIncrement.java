package io.pointsman.topo.model;

/** vschema.AutoIncrement. */
public record AutoIncrement(String column, String sequence) {}
