package io.pointsman.engine.switching;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.MigratedStream;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.concurrent.PollSchedule;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.Journal;
import io.pointsman.engine.mysql.NewStream;
import io.pointsman.engine.mysql.SidecarText;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowSubType;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.primary.PrimaryPorts;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.StreamsPort;
import io.pointsman.engine.topo.model.KeyRange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Moves the streams of other workflows from a Reshard's source shards to its target shards when
 * its writes switch, in Vitess's steps (docs/stream-migration.md): plan, stop and bring to one
 * position, create on the targets, and, after routing, delete on the sources and start on the
 * targets; or undo. Every change is fenced with the caller's locks and safe to repeat.
 */
public final class StreamMigrator {
  /** The message of the streams it stops, Vitess's. */
  static final String FOR_CUTOVER = "for cutover";
  /** The pauses between two reads of the streams it waits to see stopped: from 1 ms up to 25. */
  private static final PollSchedule POLLS = PollSchedule.upTo(Duration.ofMillis(25));

  /** Where a shard of the migration is served, checked against the planned primaries. */
  @FunctionalInterface
  public interface Shards {
    ShardRef of(String keyspace, String shard);
  }

  private final OtherStreamsReader reader;
  private final Function<ShardRef, PrimaryPorts> primaries;

  public StreamMigrator(OtherStreamsReader reader, Function<ShardRef, PrimaryPorts> primaries) {
    this.reader = reader;
    this.primaries = primaries;
  }

  /**
   * What the write switch of {@code w} migrates; NONE for a MoveTables and once a journal of the
   * switch exists (a rerun resumes after it, and the streams are stopped by then). Read-only.
   */
  public StreamMigration plan(MigrationInfo w, Shards shards) {
    if (w.migrationType() != MigrationType.SHARDS || journaled(w, shards)) {
      return StreamMigration.NONE;
    }
    return StreamMigrationPlanner.plan(w, reader.onSources(w), reader.sourceVSchema(w));
  }

  /**
   * Stops the planned streams, runs those behind on to the furthest position of any stream reading
   * the same source shard, and returns them at that position once every one has stopped there.
   */
  public StreamMigration stop(MigrationInfo w, StreamMigration plan, Duration timeout, LockSet locks, Shards shards) {
    if (plan.isEmpty()) {
      return plan;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    // FROZEN streams stopped for good when their own workflow switched: they are copied as they are.
    Map<String, List<MigratedStream>> byShard = byShard(running(plan.streams()));
    if (byShard.isEmpty()) {
      return plan;
    }
    FanOut.forEach(new ArrayList<>(byShard.keySet()), shard -> {
      ShardRef ref = shards.of(w.sourceKeyspace(), shard);
      List<Integer> ids = byShard.get(shard).stream().map(s -> (int) s.id()).toList();
      primaries.apply(ref).streams().stop(ref, ids, FOR_CUTOVER, locks);
    });
    Map<Long, Stream> stopped = read(w, byShard, shards);
    Map<String, Position> furthest = new HashMap<>();
    for (Stream s : stopped.values()) {
      furthest.merge(sourceKey(s), s.pos(), (a, b) -> b.atLeast(a) ? b : a);
    }
    List<MigratedStream> behind = running(plan.streams()).stream()
        .filter(m -> !stopped.get(m.id()).pos().equals(furthest.get(sourceKey(stopped.get(m.id()))))).toList();
    FanOut.forEach(behind, m -> {
      ShardRef ref = shards.of(w.sourceKeyspace(), m.shard());
      Position to = furthest.get(sourceKey(stopped.get(m.id())));
      PrimaryPorts at = primaries.apply(ref);
      at.streams().stopAt(ref, (int) m.id(), to, locks);
      at.positions().waitFor(ref, (int) m.id(), to, left(deadline));
    });
    Map<Long, Stream> synced = awaitStopped(w, byShard, furthest, deadline, shards);
    return new StreamMigration(plan.workflows(), plan.streams().stream()
        .map(m -> m.frozen() ? m : m.at(synced.get(m.id()).pos().encode())).toList());
  }

  /** Creates the stopped streams on every target primary, each filter pointed at its key range. */
  public void migrate(MigrationInfo w, StreamMigration stopped, LockSet locks, Shards shards) {
    if (stopped.isEmpty()) {
      return;
    }
    // Every source shard runs the same streams, stopped at the same positions: one shard's are the template.
    String first = stopped.streams().get(0).shard();
    List<MigratedStream> template = stopped.streams().stream().filter(m -> m.shard().equals(first)).toList();
    FanOut.forEach(w.targetShards(), shard -> {
      ShardRef ref = shards.of(w.targetKeyspace(), shard);
      PrimaryPorts at = primaries.apply(ref);
      for (String workflow : stopped.workflows()) {
        at.streams().delete(ref, workflow, locks);
      }
      String keyRange = KeyRange.ofShard(shard).shardName();
      at.streams().insert(ref, template.stream().map(m -> onTarget(m, keyRange)).toList(), locks);
      for (String workflow : frozen(template)) {
        at.streams().freeze(ref, workflow, locks);
      }
    });
  }

  /** The undo of {@link #stop} and {@link #migrate}: no copies on the targets, the streams Running on the sources. */
  public void cancel(MigrationInfo w, StreamMigration plan, LockSet locks, Shards shards) {
    if (plan.isEmpty()) {
      return;
    }
    FanOut.forEach(w.targetShards(), shard -> {
      ShardRef ref = shards.of(w.targetKeyspace(), shard);
      for (String workflow : plan.workflows()) {
        primaries.apply(ref).streams().delete(ref, workflow, locks);
      }
    });
    // FROZEN streams were never stopped here, and starting them would unfreeze them.
    Map<String, List<MigratedStream>> byShard = byShard(running(plan.streams()));
    FanOut.forEach(new ArrayList<>(byShard.keySet()), shard -> {
      ShardRef ref = shards.of(w.sourceKeyspace(), shard);
      for (String workflow : new TreeSet<>(byShard.get(shard).stream().map(MigratedStream::workflow).toList())) {
        primaries.apply(ref).streams().start(ref, workflow, locks);
      }
    });
  }

  /**
   * After routing points at the targets: the workflows the journal names leave the source primaries
   * and start on the target primaries. Returns them.
   */
  public List<String> finish(MigrationInfo w, LockSet locks, Shards shards) {
    TreeSet<String> workflows = new TreeSet<>();
    FanOut.map(w.sourceShards(), shard -> {
      ShardRef ref = shards.of(w.sourceKeyspace(), shard);
      return primaries.apply(ref).journals().read(ref, w.migrationId()).map(Journal::sourceWorkflows)
          .orElse(List.of());
    }).forEach(workflows::addAll);
    workflows.remove(w.workflow());
    workflows.remove(w.reverseWorkflow());
    if (workflows.isEmpty()) {
      return List.of();
    }
    FanOut.forEach(w.sourceShards(), shard -> {
      ShardRef ref = shards.of(w.sourceKeyspace(), shard);
      workflows.forEach(workflow -> primaries.apply(ref).streams().delete(ref, workflow, locks));
    });
    FanOut.forEach(w.targetShards(), shard -> {
      ShardRef ref = shards.of(w.targetKeyspace(), shard);
      StreamsPort streams = primaries.apply(ref).streams();
      for (String workflow : workflows) {
        // a FROZEN workflow's copies stay as they were made: stopped, FROZEN
        if (!streams.read(ref, workflow).stream().allMatch(Stream::isFrozen)) {
          streams.start(ref, workflow, locks);
        }
      }
    });
    return List.copyOf(workflows);
  }

  private boolean journaled(MigrationInfo w, Shards shards) {
    return FanOut.map(w.sourceShards(), shard -> {
      ShardRef ref = shards.of(w.sourceKeyspace(), shard);
      return primaries.apply(ref).journals().read(ref, w.migrationId()).isPresent();
    }).contains(true);
  }

  private static NewStream onTarget(MigratedStream m, String keyRange) {
    BinlogSource src = SidecarText.decodeSource("migrated stream " + m.id() + " of " + m.workflow(), m.source());
    List<BinlogSource.Rule> rules = src.filter().rules().stream()
        .map(r -> StreamFilters.problem(r).isPresent() ? r : StreamFilters.retarget(r, keyRange)).toList();
    return new NewStream(m.workflow(), src.withRules(rules), Position.parse(m.pos()), Position.ZERO,
        StreamState.STOPPED, m.dbName(), m.cell(), m.tabletTypes(), WorkflowType.fromCode(m.workflowType()),
        WorkflowSubType.fromCode(m.workflowSubType()), m.options());
  }

  /** The planned streams as they are now, by id; a stream gone since the plan fails the step. */
  private Map<Long, Stream> read(MigrationInfo w, Map<String, List<MigratedStream>> byShard, Shards shards) {
    Map<Long, Stream> out = new HashMap<>();
    List<List<Stream>> read = FanOut.map(new ArrayList<>(byShard.keySet()), shard -> {
      ShardRef ref = shards.of(w.sourceKeyspace(), shard);
      List<Stream> all = primaries.apply(ref).streams().readAll(ref);
      List<Stream> planned = new ArrayList<>();
      for (MigratedStream m : byShard.get(shard)) {
        planned.add(all.stream().filter(s -> s.id() == m.id()).findFirst().orElseThrow(() ->
            PointsmanException.failedPrecondition("stream " + m.id() + " of workflow " + m.workflow() + " on "
                + w.sourceKeyspace() + "/" + shard + " is gone since the switch planned to migrate it")));
      }
      return planned;
    });
    read.forEach(list -> list.forEach(s -> out.put((long) s.id(), s)));
    return out;
  }

  /** Waits until every planned stream is Stopped at its source shard's furthest position. */
  private Map<Long, Stream> awaitStopped(MigrationInfo w, Map<String, List<MigratedStream>> byShard,
      Map<String, Position> furthest, long deadline, Shards shards) {
    for (int reads = 1; ; reads++) {
      Map<Long, Stream> now = read(w, byShard, shards);
      Optional<Stream> notYet = now.values().stream()
          .filter(s -> s.state() != StreamState.STOPPED || !s.pos().equals(furthest.get(sourceKey(s)))).findFirst();
      if (notYet.isEmpty()) {
        return now;
      }
      if (System.nanoTime() > deadline) {
        Stream s = notYet.get();
        throw new PointsmanException(ErrorCode.DEADLINE_EXCEEDED, "stream " + s.id() + " of workflow " + s.workflow()
            + " on " + w.sourceKeyspace() + " did not stop at " + furthest.get(sourceKey(s)).encode()
            + " in time: it is " + s.state().column() + " at " + s.pos().encode());
      }
      sleep(reads, deadline);
    }
  }

  private static List<MigratedStream> running(List<MigratedStream> streams) {
    return streams.stream().filter(m -> !m.frozen()).toList();
  }

  private static List<String> frozen(List<MigratedStream> streams) {
    return streams.stream().filter(MigratedStream::frozen).map(MigratedStream::workflow).distinct().sorted().toList();
  }

  private static Map<String, List<MigratedStream>> byShard(List<MigratedStream> streams) {
    Map<String, List<MigratedStream>> out = new LinkedHashMap<>();
    streams.forEach(m -> out.computeIfAbsent(m.shard(), k -> new ArrayList<>()).add(m));
    return out;
  }

  private static String sourceKey(Stream s) {
    return s.source().keyspace() + ":" + s.source().shard();
  }

  private static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }

  private static void sleep(int reads, long deadline) {
    try {
      POLLS.sleepAfter(reads, deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw PointsmanException.unavailable("interrupted while waiting for migrated streams to stop", e);
    }
  }
}
