package io.pointsman.engine.topo.model;

/** vschema.KeyspaceRoutingRule: queries for {@code fromKeyspace} go to {@code toKeyspace}. */
public record KeyspaceRoutingRule(String fromKeyspace, String toKeyspace) {}
