package io.pointsman.engine.topo.model;

/**
 * vschema.MirrorRule: {@code percent} of the queries to {@code fromTable} ({@code ks.t}, or
 * {@code ks.t@replica}/{@code ks.t@rdonly}) are also sent to {@code toTable}.
 */
public record MirrorRule(String fromTable, String toTable, float percent) {}
