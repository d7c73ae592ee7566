package io.pointsman.api.model;

/**
 * One sequence table's values as a dry run shows them: the id it hands out next now, and the one it
 * will hand out once initialized (one above the highest id of the tables using it on the target).
 */
public record SequenceValue(String backingKeyspace, String backingTable, long current, long next) {}
