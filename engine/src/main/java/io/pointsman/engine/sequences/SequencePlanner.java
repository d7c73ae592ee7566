package io.pointsman.engine.sequences;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.SequenceMetadata;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.names.Names;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.AutoIncrement;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Decides from the VSchemas what a MoveTables write switch does to sequences (docs/sequences.md):
 * whether sequence tables move (their cached ids must be forgotten on the source), and which
 * sequences the moved tables use on the target, each located in the unsharded keyspace that holds
 * its sequence table. Read-only.
 */
public final class SequencePlanner {
  /** The VSchema table type of a sequence table. */
  static final String SEQUENCE = "sequence";

  private final TopologyStore topo;

  public SequencePlanner(TopologyStore topo) {
    this.topo = Objects.requireNonNull(topo, "topo");
  }

  /**
   * @param initializeTargetSequences whether the caller asked for the target's sequences to be
   *     initialized; honoured, as by Vitess, only when the source keyspace is unsharded
   * @throws PointsmanException FAILED_PRECONDITION for a sequence that cannot be located, naming it
   */
  public SequencePlan plan(MigrationInfo w, boolean initializeTargetSequences) {
    if (w.migrationType() != MigrationType.TABLES) {
      return SequencePlan.NONE; // a Reshard keeps every table where its sequence is
    }
    Optional<VSchema> target = vschema(w.targetKeyspace());
    if (target.isEmpty() || target.get().tables().isEmpty()) {
      return SequencePlan.NONE;
    }
    boolean movesSequenceTables = w.tables().stream().anyMatch(t -> isSequence(target.get().tables().get(t)));
    boolean sourceUnsharded = vschema(w.sourceKeyspace()).map(v -> !v.sharded()).orElse(true);
    List<SequenceMetadata> initialize = initializeTargetSequences && sourceUnsharded
        ? used(w, target.get())
        : List.of();
    return new SequencePlan(movesSequenceTables, initialize);
  }

  private List<SequenceMetadata> used(MigrationInfo w, VSchema target) {
    List<SequenceMetadata> out = new ArrayList<>();
    for (String table : w.tables()) {
      VSchemaTable t = target.tables().get(table);
      AutoIncrement ai = t == null ? null : t.autoIncrement();
      if (ai == null || ai.sequence() == null || ai.sequence().isEmpty()) {
        continue;
      }
      String where = "table " + table + " in the VSchema of keyspace " + w.targetKeyspace();
      String column = name(ai.column(), "auto_increment column of " + where);
      String sequence = ai.sequence();
      int dot = sequence.indexOf('.');
      String backingTable;
      String backingKeyspace;
      if (dot >= 0) {
        backingKeyspace = name(sequence.substring(0, dot), "keyspace of sequence " + sequence + " of " + where,
            Names::keyspace);
        backingTable = name(sequence.substring(dot + 1), "sequence " + sequence + " of " + where);
      } else {
        backingTable = name(sequence, "sequence of " + where);
        backingKeyspace = locate(backingTable, where);
      }
      out.add(new SequenceMetadata(table, column, backingKeyspace, backingTable));
    }
    return out;
  }

  /** The one unsharded keyspace whose VSchema has {@code table} as a sequence table. */
  private String locate(String table, String where) {
    List<String> holders = new ArrayList<>();
    for (String keyspace : topo.listKeyspaces()) {
      Optional<VSchema> v = vschema(keyspace);
      if (v.isPresent() && !v.get().sharded() && isSequence(v.get().tables().get(table))) {
        holders.add(keyspace);
      }
    }
    if (holders.size() == 1) {
      return holders.get(0);
    }
    throw PointsmanException.failedPrecondition(holders.isEmpty()
        ? "the sequence table " + table + " of " + where + " is in no unsharded keyspace's VSchema: add it to one"
            + " as a table of type sequence, or name it keyspace.table; nothing was changed"
        : "the sequence table " + table + " of " + where + " is in the VSchemas of several unsharded keyspaces "
            + holders + ": name it keyspace.table; nothing was changed");
  }

  private Optional<VSchema> vschema(String keyspace) {
    return topo.get(topo.keys().vschema(keyspace)).map(v -> v.value());
  }

  private static boolean isSequence(VSchemaTable t) {
    return t != null && SEQUENCE.equals(t.type());
  }

  private static String name(String raw, String what) {
    return name(raw, what, Names::table);
  }

  /** A VSchema name, backticks removed, checked to be a plain identifier. */
  private static String name(String raw, String what, UnaryOperator<String> check) {
    String s = raw == null ? "" : raw.strip();
    if (s.length() >= 2 && s.startsWith("`") && s.endsWith("`")) {
      s = s.substring(1, s.length() - 1);
    }
    if (s.isEmpty()) {
      throw PointsmanException.failedPrecondition("the " + what + " is empty; nothing was changed");
    }
    try {
      return check.apply(s);
    } catch (PointsmanException e) {
      throw PointsmanException.failedPrecondition("the " + what + " is not a name pointsman can use: "
          + e.getMessage() + "; nothing was changed");
    }
  }
}
