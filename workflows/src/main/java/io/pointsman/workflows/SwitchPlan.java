package io.pointsman.workflows;

import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.SequenceValue;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.model.StreamRef;
import io.pointsman.api.model.TabletType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The lines of a dry run, the kinds Vitess's dry-run switcher prints, computed from the real
 * current state. Pure: it only formats what the read-only steps found.
 */
final class SwitchPlan {
  private final List<String> lines = new ArrayList<>();
  /** The shard locks of the write window, in the order they are taken; released before the keyspaces. */
  private final List<String> shardLocks = new ArrayList<>();

  List<String> lines() {
    return lines.isEmpty() ? List.of("No changes required") : List.copyOf(lines);
  }

  void locks(String namedLock, List<String> keyspaces) {
    lines.add("Lock workflow " + namedLock);
    keyspaces.forEach(ks -> lines.add("Lock keyspace " + ks));
  }

  void unlocks(String namedLock, List<String> keyspaces) {
    for (int i = shardLocks.size() - 1; i >= 0; i--) {
      lines.add("Unlock shard " + shardLocks.get(i));
    }
    for (int i = keyspaces.size() - 1; i >= 0; i--) {
      lines.add("Unlock keyspace " + keyspaces.get(i));
    }
    lines.add("Unlock workflow " + namedLock);
  }

  /**
   * The switch's removal of the mirror rules of {@code types} from {@code info}'s source to its
   * target, worded as Vitess's dry run words it (mirroring at 0 percent).
   */
  void mirrorRemoval(MigrationInfo info, List<TabletType> types) {
    lines.add(mirroring(info, 0, types));
  }

  /** Vitess's dry-run line for mirroring {@code percent} of {@code info}'s traffic of {@code types}. */
  static String mirroring(MigrationInfo info, float percent, List<TabletType> types) {
    return "Mirroring " + String.format(Locale.ROOT, "%.2f", percent) + " percent of traffic from keyspace "
        + info.sourceKeyspace() + " to keyspace " + info.targetKeyspace() + " for tablet types ["
        + String.join(",", types.stream().map(Enum::name).toList()) + "]";
  }

  void reads(MigrationInfo info, TabletType tabletType, List<String> cells, Direction direction) {
    String toKeyspace = direction == Direction.FORWARD ? info.targetKeyspace() : info.sourceKeyspace();
    if (info.migrationType() == MigrationType.TABLES) {
      lines.add("Switch reads for tables " + info.tables() + " to keyspace " + toKeyspace + " for tablet types ["
          + tabletType + "]");
      lines.add("Routing rules for tables " + info.tables() + " will be updated");
      lines.add("Serving VSchema will be rebuilt for cells " + cells);
    } else {
      List<String> from = direction == Direction.FORWARD ? info.sourceShards() : info.targetShards();
      List<String> to = direction == Direction.FORWARD ? info.targetShards() : info.sourceShards();
      lines.add("Switch reads from keyspace " + info.targetKeyspace() + " to keyspace " + info.targetKeyspace()
          + " for shards " + from + " to shards " + to + " for tablet types [" + tabletType + "] in cells " + cells);
    }
  }

  void readsAlreadySwitched(TabletType tabletType, Direction direction) {
    lines.add("Reads for tablet type " + tabletType + " are already switched "
        + (direction == Direction.FORWARD ? "to the target" : "to the source") + ": nothing to do");
  }

  void writes(MigrationInfo w, Map<String, String> sourcePositions, String timeout, boolean reverseReplication,
      boolean resetSequences, List<SequenceValue> sequences, StreamMigration migration) {
    String what = w.migrationType() == MigrationType.TABLES ? "tables " + w.tables() : "shards " + w.sourceShards();
    // Vitess locks keyspaces only; pointsman also holds the shard locks, so no reparent runs meanwhile.
    w.sourceShards().forEach(shard -> shardLocks.add(w.sourceKeyspace() + "/" + shard));
    w.targetShards().forEach(shard -> shardLocks.add(w.targetKeyspace() + "/" + shard));
    shardLocks.forEach(shard -> lines.add("Lock shard " + shard));
    lines.add("Plan the primaries of shards " + shardLocks + ": every change goes to them only");
    lines.add("Stop writes on keyspace " + w.sourceKeyspace() + " for " + what + ": "
        + positions(w.sourceKeyspace(), sourcePositions));
    lines.add("Deny writes on the source primaries (write barrier) and drain transactions in flight");
    if (!migration.isEmpty()) {
      lines.add("Stop streams on keyspace " + w.sourceKeyspace() + ": " + migration.streams().stream()
          .map(m -> "id:" + m.id() + ";shard:" + m.shard() + ";workflow:" + m.workflow() + ";position:" + m.pos())
          .toList());
    }
    lines.add("Wait for vreplication on stopped streams to catch up for up to " + timeout);
    if (!migration.isEmpty()) {
      lines.add("Migrate streams to " + w.targetKeyspace() + ":");
      String first = migration.streams().get(0).shard();
      List<String> created = new ArrayList<>();
      for (String target : w.targetShards()) {
        migration.streams().stream().filter(m -> m.shard().equals(first)).forEach(m -> created.add("keyspace:"
            + w.targetKeyspace() + ";shard:" + target + ";workflow:" + m.workflow() + ";from:" + m.shard()
            + " id " + m.id()));
      }
      lines.add("Create target streams (as stopped): " + created);
    }
    if (resetSequences) {
      lines.add("The sequence caches will be reset on the source since sequence tables are being moved");
    }
    lines.add("Create reverse vreplication workflow " + w.reverseWorkflow());
    if (!sequences.isEmpty()) {
      lines.add("The following sequence backing tables used by tables being moved will be initialized:");
      sequences.forEach(v -> lines.add("\tBacking table: " + v.backingTable() + ", current value " + v.current()
          + ", new value " + v.next()));
    }
    lines.add("Create journal entries on source databases (migration id " + w.migrationId() + ")");
    // Reshard enables the target shards' primaries; MoveTables lifts the tables' denial on the target.
    String enabled = w.migrationType() == MigrationType.TABLES ? what : "shards " + w.targetShards();
    lines.add("Enable writes on keyspace " + w.targetKeyspace() + " for " + enabled);
    lines.add("Switch routing from keyspace " + w.sourceKeyspace() + " to keyspace " + w.targetKeyspace());
    if (w.migrationType() == MigrationType.TABLES) {
      lines.add("Routing rules for tables " + w.tables() + " will be updated");
    } else {
      lines.add("IsPrimaryServing will be set to false for " + w.sourceShards() + " and to true for "
          + w.targetShards());
    }
    if (!migration.isEmpty()) {
      lines.add("Switch writes completed, delete the streams of " + migration.workflows() + " on " + w.sourceShards()
          + " and start them on " + w.targetShards());
    }
    List<String> streams = w.streams().stream().map(SwitchPlan::stream).toList();
    if (reverseReplication) {
      lines.add("Start reverse vreplication streams on: " + w.sourceShards());
    }
    lines.add("Mark vreplication streams frozen on: " + streams);
  }

  void writesAlreadySwitched(String why) {
    lines.add("Writes are already switched: " + why);
  }

  private static String positions(String keyspace, Map<String, String> byShard) {
    List<String> out = new ArrayList<>();
    byShard.keySet().stream().sorted()
        .forEach(shard -> out.add("keyspace:" + keyspace + ";shard:" + shard + ";position:" + byShard.get(shard)));
    return out.toString();
  }

  private static String stream(StreamRef s) {
    return "shard:" + s.targetShard() + ";id:" + s.id() + ";source:" + s.sourceShard();
  }
}
