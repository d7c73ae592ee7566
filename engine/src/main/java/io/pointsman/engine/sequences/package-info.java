/**
 * Vitess sequences in a MoveTables write switch: what to do, read from the VSchemas
 * ({@link io.pointsman.engine.sequences.SequencePlanner}), and doing it on the primaries through
 * their {@link io.pointsman.engine.primary.SequencesPort} ({@link io.pointsman.engine.sequences.TargetSequences}).
 */
package io.pointsman.engine.sequences;
