package io.pointsman.api.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.List;

/**
 * What a Reshard's write switch does with other workflows' streams on its source shards, decided
 * under the keyspace locks as Vitess's stream migrator decides it: each is stopped on the source
 * shards, brought to one position, recreated on the target shards with the target's key range, and
 * started there once routing points at the targets, when its copies on the sources are deleted.
 *
 * @param workflows the workflows migrated, sorted: the journal names them ({@code source_workflows})
 * @param streams their streams on every source shard
 */
public record StreamMigration(List<String> workflows, List<MigratedStream> streams) {
  /** Nothing to migrate: a MoveTables, or a Reshard whose source shards run no other streams. */
  public static final StreamMigration NONE = new StreamMigration(List.of(), List.of());

  public StreamMigration {
    workflows = workflows == null ? List.of() : List.copyOf(workflows);
    streams = streams == null ? List.of() : List.copyOf(streams);
  }

  @JsonIgnore
  public boolean isEmpty() {
    return streams.isEmpty();
  }
}
