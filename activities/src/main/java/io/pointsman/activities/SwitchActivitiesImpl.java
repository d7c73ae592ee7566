package io.pointsman.activities;

import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.SavedStream;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.model.SequenceValue;
import io.pointsman.api.model.ShardPositions;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.engine.Services;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.lock.LockCheck;
import io.pointsman.engine.lock.LockStatus;
import io.pointsman.engine.mysql.Journal;
import io.pointsman.engine.mysql.NewStream;
import io.pointsman.engine.mysql.PrepareBudget;
import io.pointsman.engine.mysql.PrimaryResolver.PrimaryTablet;
import io.pointsman.engine.mysql.ReverseStreams;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.primary.PrimaryPorts;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.StreamsPort;
import io.pointsman.engine.primary.WriteGatePort;
import io.pointsman.engine.sequences.SequencePlanner;
import io.pointsman.engine.sequences.TargetSequences;
import io.pointsman.engine.switching.MigrationReader;
import io.pointsman.engine.switching.OtherStreamsReader;
import io.pointsman.engine.switching.StreamMigrator;
import io.pointsman.engine.switching.TopologySwitcher;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.VSchema;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps of a switch on the real topology and primaries. Stateless apart from its services;
 * one instance serves every activity call of a worker.
 */
public final class SwitchActivitiesImpl implements SwitchActivities {
  /** The message of streams stopped by waitForCatchup (Vitess's words). */
  private static final String CUTOVER_STOP = "stopped for cutover";
  private static final Logger log = LoggerFactory.getLogger(SwitchActivitiesImpl.class);
  /** How long lifting the write barrier waits for transactions in flight before giving up. */
  private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);

  private final Services services;
  private final TopologySwitcher topology;
  private final MigrationReader reader;
  private final PrimaryFencing fencing;
  private final OtherStreamsReader others;
  private final StreamMigrator migrator;
  private final SequencePlanner sequencePlanner;
  private final ReverseReplicationCheck reverseReplication;
  private final Clock clock;

  public SwitchActivitiesImpl(Services services) {
    this(services, Clock.systemUTC());
  }

  SwitchActivitiesImpl(Services services, Clock clock) {
    this.services = services;
    this.topology = new TopologySwitcher(services.store());
    this.reader = new MigrationReader(services.store(), services::primary);
    this.fencing = new PrimaryFencing(services.primaries());
    this.others = new OtherStreamsReader(services.store(), services::primary);
    this.migrator = new StreamMigrator(others, services::primary);
    this.sequencePlanner = new SequencePlanner(services.store());
    this.reverseReplication = new ReverseReplicationCheck(services::primary, topology::cells);
    this.clock = clock;
  }

  @Override
  public MigrationInfo buildTrafficSwitcher(String targetKeyspace, String workflow) {
    return ActivityFailures.translate(() -> reader.readSwitchable(targetKeyspace, workflow));
  }

  @Override
  public MigrationInfo buildTrafficSwitcherIgnoringSource(String targetKeyspace, String workflow) {
    return ActivityFailures.translate(() -> reader.readIgnoringSource(targetKeyspace, workflow));
  }

  @Override
  public WorkflowState getWorkflowState(MigrationInfo info, List<String> cells) {
    return ActivityFailures.translate(() -> topology.state(info, cells));
  }

  @Override
  public String canSwitch(MigrationInfo info, Duration maxReplicationLagAllowed) {
    return ActivityFailures.translate(() -> {
      Instant now = clock.instant();
      List<Stream> all = FanOut.map(info.targetShards(),
          shard -> {
            ShardRef target = target(info, shard);
            return streams(target).read(target, info.workflow());
          }).stream()
          .flatMap(List::stream).toList();
      if (all.stream().anyMatch(Stream::isFrozen)) {
        return "workflow is frozen";
      }
      if (all.stream().anyMatch(s -> s.effectiveState(now) == StreamState.COPYING || s.copyPending())) {
        return "copy is still in progress";
      }
      List<String> errors = all.stream().filter(s -> s.effectiveState(now) == StreamState.ERROR)
          .map(s -> "stream " + s.id() + ": " + s.message()).toList();
      if (!errors.isEmpty()) {
        return "workflow has errors: " + String.join("; ", errors);
      }
      Duration lag = Stream.maxTransactionLag(all, now);
      if (lag.compareTo(maxReplicationLagAllowed) > 0) {
        return "replication lag " + lag.toSeconds() + "s is higher than allowed lag "
            + maxReplicationLagAllowed.toSeconds() + "s";
      }
      return "";
    });
  }

  @Override
  public String checkReverseReplication(MigrationInfo info, List<String> cells) {
    return ActivityFailures.translate(() -> reverseReplication.problems(info, cells));
  }

  @Override
  public void checkStreamMigration(MigrationInfo w) {
    ActivityFailures.translate(() -> others.checkWriteSwitch(w));
  }

  @Override
  public StreamMigration planStreamMigration(MigrationInfo w) {
    return ActivityFailures.translate(() -> migrator.plan(w, shards(w)));
  }

  @Override
  public StreamMigration stopStreams(MigrationInfo w, StreamMigration plan, Duration timeout, LockSet stepLocks) {
    return migrating(w, stepLocks, (locks, shards) -> migrator.stop(w, plan, timeout, locks, shards));
  }

  @Override
  public void migrateStreams(MigrationInfo w, StreamMigration stopped, LockSet stepLocks) {
    migrating(w, stepLocks, (locks, shards) -> {
      migrator.migrate(w, stopped, locks, shards);
      return null;
    });
  }

  @Override
  public void cancelStreamMigration(MigrationInfo w, StreamMigration plan, LockSet stepLocks) {
    migrating(w, stepLocks, (locks, shards) -> {
      migrator.cancel(w, plan, locks, shards);
      return null;
    });
  }

  @Override
  public List<String> finalizeStreamMigration(MigrationInfo w, LockSet stepLocks) {
    return migrating(w, stepLocks, (locks, shards) -> migrator.finish(w, locks, shards));
  }

  /** One step of a stream migration, given this attempt's locks and the shards bound to their planned primaries. */
  @FunctionalInterface
  private interface MigrationStep<T> {
    T run(LockSet locks, StreamMigrator.Shards shards);
  }

  /** The frame of the stream-migration steps: this attempt's locks, checked held, heartbeating. */
  private <T> T migrating(MigrationInfo w, LockSet stepLocks, MigrationStep<T> step) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    return ActivityFailures.translate(() -> {
      try (Heartbeater hb = Heartbeater.start()) {
        checkHeld(locks);
        return step.run(locks, shards(w));
      }
    });
  }

  @Override
  public void checkSourceShardsDeletion(MigrationInfo info) {
    ActivityFailures.translate(() -> others.checkSourceShardsDeletion(info));
  }

  @Override
  public boolean checkJournals(MigrationInfo info) {
    return ActivityFailures.translate(() -> FanOut.map(info.sourceShards(), s -> {
      ShardRef source = source(info, s);
      return ports(source).journals().read(source, info.migrationId()).isPresent();
    }).contains(true));
  }

  @Override
  public void switchReads(MigrationInfo info, List<TabletType> tabletTypes, List<String> cells, Direction direction,
      LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      topology.switchReads(info, tabletTypes, cells, direction, locks);
      // The read switch removed mirror rules of these types; the target primaries are told
      // whether reads of the denied tables still pass, as Vitess's switch tells them.
      settleTargetReads(info, locks);
    });
  }

  @Override
  public void mirrorTableTraffic(MigrationInfo info, List<TabletType> tabletTypes, float percent, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      // Refused here, before any change, when the rules there are would be left partial.
      boolean mirroring = topology.mirrorRulesAfter(info, tabletTypes, percent)
          .mirrorsAny(info.tables(), info.sourceKeyspace(), info.targetKeyspace());
      // The target primaries first accept the mirrored reads, then vtgate is told to send them.
      // Refreshed whether or not this run changed the records, as Vitess refreshes them whenever it
      // sets the flag: a run whose refresh failed has already written them, and the run after it
      // must still tell the tablets before the rules are served.
      if (mirroring) {
        topology.allowTargetReadsForMirroring(info, locks);
        refresh(info.targetKeyspace(), info.targetShards());
      }
      topology.mirrorTraffic(info, tabletTypes, percent, locks);
      // From the rules as they are now: cleared once the last of the workflow's rules went.
      topology.allowTargetReadsWhileMirrored(info, locks);
      if (!mirroring) {
        refresh(info.targetKeyspace(), info.targetShards());
      }
    });
  }

  @Override
  public void allowTargetReadsWhileMirrored(MigrationInfo info, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> settleTargetReads(info, locks));
  }

  /**
   * A MoveTables' target primaries allow reads of their denied tables as the mirror rules now say,
   * and are refreshed. Every time, not only when this run changed a record: a run whose refresh
   * failed has already changed the records, and the run after it cannot tell from them that the
   * tablets were never told (Vitess refreshes whenever it sets the flag, changed or not, but sets
   * it only while reads are mirrored, so its rerun misses them). Nothing for a Reshard.
   */
  private void settleTargetReads(MigrationInfo info, LockSet locks) {
    if (info.migrationType() == MigrationType.TABLES) {
      topology.allowTargetReadsWhileMirrored(info, locks);
      refresh(info.targetKeyspace(), info.targetShards());
    }
  }

  @Override
  public void prepareSourceWrites(MigrationInfo info, String owner, Duration timeout, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      PrepareBudget budget = prepareBudget(timeout);
      checkHeld(locks);
      try (Heartbeater hb = Heartbeater.start()) {
        FanOut.forEach(info.sourceShards(), shard -> {
          ShardRef source = source(info, shard);
          ports(source).writeGate().prepare(source, scope(info), owner, locks, budget);
        });
        hb.checkCancelled();
      }
    });
  }

  /**
   * Each statement waits for transactions at most the request's timeout, as the window's drain does;
   * the statements together, what the step may take (SwitchActivities#prepareSourceWrites).
   */
  static PrepareBudget prepareBudget(Duration timeout) {
    Duration total = AttemptTime.left(timeout.plus(PREPARE_WORK));
    return new PrepareBudget(timeout, total.compareTo(timeout) < 0 ? timeout : total);
  }

  @Override
  public void removePreparedSourceBarrier(MigrationInfo info, String owner, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      checkHeld(locks);
      try (Heartbeater hb = Heartbeater.start()) {
        FanOut.forEach(info.sourceShards(), shard -> {
          ShardRef source = source(info, shard);
          ports(source).writeGate().removePrepared(source, scope(info), owner, locks, DRAIN_TIMEOUT);
        });
      }
    });
  }

  @Override
  public void stopSourceWrites(MigrationInfo info, Duration drainTimeout, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      // The topology first: routers start buffering instead of sending writes that would fail.
      // etcd is asked about the locks meanwhile (the commit itself is guarded by them).
      LockCheck held = askHeld(locks);
      topology.stopSourceWrites(info, locks);
      try (Heartbeater hb = Heartbeater.start()) {
        requireHeld(held, locks);
        FanOut.forEach(info.sourceShards(), shard -> {
          ShardRef source = source(info, shard);
          Duration took = ports(source).writeGate().deny(source, scope(info), locks, drainTimeout);
          log.info("writes to {} denied on {} in {}", scope(info), source, took);
        });
        hb.checkCancelled();
      }
    });
  }

  @Override
  public void allowSourceWrites(MigrationInfo info, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> allowWrites(info.sourceKeyspace(), info.sourceShards(),
        shard -> source(info, shard), (gate, shard) -> gate.undoDeny(shard, scope(info), locks, DRAIN_TIMEOUT),
        () -> topology.allowSourceWrites(info, locks), locks));
  }

  @Override
  public Map<String, String> gatherSourcePositions(MigrationInfo info) {
    return ActivityFailures.translate(() -> {
      return positions(info, info.sourceKeyspace(), info.sourceShards());
    });
  }

  @Override
  public Map<String, String> waitForCatchup(MigrationInfo info, Map<String, String> sourcePositions, Duration timeout,
      LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    return ActivityFailures.translate(() -> {
      long deadline = System.nanoTime() + timeout.toNanos();
      try (Heartbeater hb = Heartbeater.start()) {
        restartCutoverStops(info, locks);
        FanOut.forEach(info.streams(), ref -> {
          Position wanted = Position.parse(sourcePositions.get(ref.sourceShard()));
          Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
          ShardRef target = target(info, ref.targetShard());
          if (info.migrationType() == MigrationType.TABLES) {
            // Not for a Reshard: setting the stop position restarts the stream, and a restarted
            // stream cannot find its source now, whose query service the switch has just disabled.
            streams(target).stopAt(target, (int) ref.id(), wanted, locks);
          }
          ports(target).positions().waitFor(target, (int) ref.id(), wanted, left);
        });
        hb.checkCancelled();
        checkHeld(locks);
        FanOut.forEach(info.targetShards(), shard -> {
          List<Integer> ids = info.streams().stream().filter(r -> r.targetShard().equals(shard))
              .map(r -> (int) r.id()).toList();
          if (!ids.isEmpty()) {
            ShardRef target = target(info, shard);
            streams(target).stop(target, ids, CUTOVER_STOP, locks);
          }
        });
      }
      return positions(info, info.targetKeyspace(), info.targetShards());
    });
  }

  @Override
  public MigrationInfo planPrimaries(MigrationInfo info) {
    return ActivityFailures.translate(() -> info.withPlannedPrimaries(fencing.plan(info)));
  }

  @Override
  public void restartStreams(MigrationInfo info, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> start(info.workflow(), info.targetShards(), shard -> target(info, shard), locks));
  }

  @Override
  public List<SavedStream> readReverseStreams(MigrationInfo info) {
    return ActivityFailures.translate(() -> {
      return FanOut.map(info.sourceShards(), shard -> {
        ShardRef source = source(info, shard);
        return streams(source).save(source, info.reverseWorkflow());
      }).stream().flatMap(List::stream).toList();
    });
  }

  @Override
  public void createReverseVReplication(MigrationInfo info, Map<String, String> targetPositions, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      try (Heartbeater hb = Heartbeater.start()) {
        createReverseStreams(info, targetPositions, locks);
      }
    });
  }

  /**
   * Outside the local chain this is an ordinary activity with a heartbeat timeout: it heartbeats
   * (Heartbeater) while it reads every target's streams and replaces the reverse streams.
   */
  private void createReverseStreams(MigrationInfo info, Map<String, String> targetPositions, LockSet locks) {
    // Every read at once (the VSchema, each source's key range and primary, each target's streams
    // and primary): each is a round trip, and this step runs while writes are stopped. One after
    // another, a Reshard of two shards into four made fifteen etcd reads in a row here.
    LockCheck held = askHeld(locks);
    int sources = info.sourceShards().size();
    int targets = info.targetShards().size();
    VSchema[] sourceVSchema = new VSchema[1];
    KeyRange[] sourceRanges = new KeyRange[sources];
    PrimaryTablet[] sourcePrimaries = new PrimaryTablet[sources];
    PrimaryTablet[] targetPrimaries = new PrimaryTablet[targets];
    List<List<Stream>> forwardByTarget = new ArrayList<>(Collections.nCopies(targets, List.of()));
    List<Runnable> reads = new ArrayList<>();
    reads.add(() -> sourceVSchema[0] = services.store().get(services.store().keys().vschema(info.sourceKeyspace()))
        .map(v -> v.value()).orElse(new VSchema(false, null, null)));
    for (int i = 0; i < sources; i++) {
      int at = i;
      String s = info.sourceShards().get(i);
      reads.add(() -> sourceRanges[at] = services.store().getRequired(services.store().keys()
          .shard(info.sourceKeyspace(), s)).value().keyRange());
      reads.add(() -> sourcePrimaries[at] = services.primaries().tablet(info.sourceKeyspace(), s));
    }
    for (int i = 0; i < targets; i++) {
      int at = i;
      String shard = info.targetShards().get(i);
      reads.add(() -> {
        ShardRef target = target(info, shard);
        forwardByTarget.set(at, streams(target).read(target, info.workflow()));
      });
      reads.add(() -> targetPrimaries[at] = services.primaries().tablet(info.targetKeyspace(), shard));
    }
    FanOut.forEach(reads, Runnable::run);
    Map<String, List<NewStream>> bySourceShard = new LinkedHashMap<>();
    info.sourceShards().forEach(s -> bySourceShard.put(s, new ArrayList<>()));
    for (int i = 0; i < targets; i++) {
      String targetShard = info.targetShards().get(i);
      PrimaryTablet target = targetPrimaries[i];
      for (Stream forward : forwardByTarget.get(i)) {
        String sourceShard = forward.source().shard();
        int source = info.sourceShards().indexOf(sourceShard);
        if (source < 0) {
          throw PointsmanException.failedPrecondition("stream " + forward.id() + " of " + info.workflow() + " on "
              + info.targetKeyspace() + "/" + targetShard + " reads from shard " + sourceShard + ", which is not a"
              + " source shard of the workflow " + info.sourceShards() + "; nothing was changed");
        }
        bySourceShard.get(sourceShard).add(ReverseStreams.reverse(new ReverseStreams.Spec(info.targetKeyspace(),
            targetShard, forward, Position.parse(targetPositions.get(targetShard)), info.sourceKeyspace(),
            sourceRanges[source], sourceVSchema[0], sourcePrimaries[source].tablet().dbName(),
            target.alias().cell(), sourcePrimaries[source].alias().cell())));
      }
    }
    requireHeld(held, locks);
    FanOut.forEach(info.sourceShards(), shard -> {
      ShardRef source = source(info, shard);
      streams(source).replace(source, info.reverseWorkflow(), bySourceShard.get(shard), locks);
    });
  }

  @Override
  public void restoreReverseVReplication(MigrationInfo info, List<SavedStream> saved, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      checkHeld(locks);
      FanOut.forEach(info.sourceShards(), shard -> {
        ShardRef source = source(info, shard);
        streams(source).restore(source, info.reverseWorkflow(),
            saved.stream().filter(s -> s.shard().equals(shard)).toList(), locks);
      });
    });
  }

  @Override
  public SequencePlan planSequences(MigrationInfo info, boolean initializeTargetSequences) {
    return ActivityFailures.translate(() -> sequencePlanner.plan(info, initializeTargetSequences));
  }

  @Override
  public List<SequenceValue> readSequenceValues(MigrationInfo info, SequencePlan plan) {
    return ActivityFailures.translate(() -> sequences(info).values(info, plan));
  }

  @Override
  public void resetSequences(MigrationInfo info, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      checkHeld(locks);
      sequences(info).resetSources(info);
    });
  }

  @Override
  public Map<String, Long> initializeTargetSequences(MigrationInfo info, SequencePlan plan, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    return ActivityFailures.translate(() -> {
      // Writes are stopped everywhere, so the highest ids read now stay the highest until the
      // target takes writes; and a sequence only moves up, so no fence guards the update.
      checkHeld(locks);
      Map<String, Long> highest = sequences(info).initialize(info, plan);
      log.info("sequences of {} moved past the highest ids on {}: {}", info.qualifiedName(), info.targetKeyspace(),
          highest);
      return highest;
    });
  }

  @Override
  public void createJournals(MigrationInfo info, Map<String, String> sourcePositions,
      Map<String, String> targetPositions, List<String> sourceWorkflows, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      List<Journal.ShardGtid> gtids = info.targetShards().stream()
          .map(s -> new Journal.ShardGtid(info.targetKeyspace(), s, Position.parse(targetPositions.get(s)))).toList();
      List<Journal.KeyspaceShard> participants = info.sourceShards().stream()
          .map(s -> new Journal.KeyspaceShard(info.sourceKeyspace(), s)).toList();
      Journal.MigrationType type = info.migrationType() == MigrationType.TABLES
          ? Journal.MigrationType.TABLES : Journal.MigrationType.SHARDS;
      // Heartbeats: outside the local chain it has a heartbeat timeout, and reads and writes every source.
      try (Heartbeater hb = Heartbeater.start()) {
        LockCheck held = askHeld(locks);
        List<Optional<Journal>> existing = FanOut.map(info.sourceShards(), shard -> {
          ShardRef source = source(info, shard);
          return ports(source).journals().read(source, info.migrationId());
        });
        requireHeld(held, locks);
        // Resuming after the point of no return: the journals missing say what the written ones say.
        List<String> workflows = existing.stream().flatMap(Optional::stream).findFirst().map(Journal::sourceWorkflows)
            .orElse(sourceWorkflows == null ? List.of() : sourceWorkflows);
        FanOut.forEach(info.sourceShards(), shard -> {
          if (existing.get(info.sourceShards().indexOf(shard)).isPresent()) {
            return; // written by an earlier attempt
          }
          ShardRef source = source(info, shard);
          PrimaryPorts at = ports(source);
          String local = sourcePositions.get(shard);
          at.journals().create(source, new Journal(info.migrationId(), type, info.tables(),
              local == null ? at.positions().current(source) : Position.parse(local), gtids, participants,
              workflows), locks);
        });
      }
    });
  }

  @Override
  public void allowTargetWrites(MigrationInfo info, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    // An earlier ReverseTraffic raised a barrier on these primaries when they were its source.
    // Lowered with one flip per primary; its triggers stay dormant until Complete or Cancel,
    // since dropping them here would put DDL per table back in the write window.
    ActivityFailures.translate(() -> allowWrites(info.targetKeyspace(), info.targetShards(),
        shard -> target(info, shard), (gate, shard) -> gate.open(shard, scope(info), locks, DRAIN_TIMEOUT),
        () -> topology.allowTargetWrites(info, locks), locks));
  }

  /** What lowering the barrier does on one primary: undo a deny, or open the gate. */
  @FunctionalInterface
  private interface GateChange {
    void apply(WriteGatePort gate, ShardRef shard);
  }

  /**
   * Lets writes through on the shards: the barrier on each primary first (at once), then the
   * topology, then the tablets are told to read it.
   */
  private void allowWrites(String keyspace, List<String> shards, Function<String, ShardRef> ref,
      GateChange change, Runnable topologyChange, LockSet locks) {
    checkHeld(locks);
    try (Heartbeater hb = Heartbeater.start()) {
      FanOut.forEach(shards, shard -> {
        ShardRef at = ref.apply(shard);
        change.apply(ports(at).writeGate(), at);
      });
    }
    topologyChange.run();
    refresh(keyspace, shards);
  }

  @Override
  public void changeRouting(MigrationInfo info, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      // Heartbeats: outside the local chain it has a heartbeat timeout, and may split into many transactions.
      try (Heartbeater hb = Heartbeater.start()) {
        topology.changeRouting(info, locks);
      }
    });
  }

  @Override
  public void startReverseVReplication(MigrationInfo info, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> start(info.reverseWorkflow(), info.sourceShards(), shard -> source(info, shard),
        locks));
  }

  /** Sets the workflow's streams Running on the shards' primaries (message and stop position cleared). */
  private void start(String workflow, List<String> shards, Function<String, ShardRef> ref, LockSet locks) {
    checkHeld(locks);
    FanOut.forEach(shards, shard -> {
      ShardRef at = ref.apply(shard);
      streams(at).start(at, workflow, locks);
    });
  }

  @Override
  public void freezeTargetVReplication(MigrationInfo info, LockSet stepLocks) {
    LockSet locks = StepEpochs.thisAttempt(stepLocks);
    ActivityFailures.translate(() -> {
      checkHeld(locks);
      FanOut.forEach(info.targetShards(), shard -> {
        ShardRef target = target(info, shard);
        streams(target).freeze(target, info.workflow(), locks);
      });
    });
  }

  @Override
  public ShardPositions gatherPositions(MigrationInfo info) {
    return ActivityFailures.translate(() -> {
      return new ShardPositions(positions(info, info.sourceKeyspace(), info.sourceShards()),
          positions(info, info.targetKeyspace(), info.targetShards()));
    });
  }

  // ---- helpers -------------------------------------------------------------------------------

  /**
   * Streams an earlier pass of this switch stopped for cutover (its worker died before the pass was
   * recorded) stand at that pass's positions; the barrier's own fence write has moved the sources
   * since, so they are started again to catch up with the positions of this pass, then stopped.
   */
  private void restartCutoverStops(MigrationInfo info, LockSet locks) {
    FanOut.forEach(info.targetShards(), shard -> {
      ShardRef target = target(info, shard);
      boolean stoppedForCutover = streams(target).read(target, info.workflow()).stream()
          .anyMatch(st -> st.state() == StreamState.STOPPED && CUTOVER_STOP.equals(st.message()));
      if (stoppedForCutover) {
        checkHeld(locks);
        log.info("streams of {} on {}/{} were stopped for cutover by an earlier pass: starting them to catch up",
            info.workflow(), info.targetKeyspace(), shard);
        streams(target).start(target, info.workflow(), locks);
      }
    });
  }

  /** The current positions of the shards' primaries, read at once, by shard. */
  private Map<String, String> positions(MigrationInfo info, String keyspace, List<String> shards) {
    List<String> read = FanOut.map(shards, shard -> {
      ShardRef ref = fencing.bind(info, keyspace, shard);
      return ports(ref).positions().current(ref).encode();
    });
    Map<String, String> out = new TreeMap<>();
    for (int i = 0; i < shards.size(); i++) {
      out.put(shards.get(i), read.get(i));
    }
    return out;
  }

  /** The shards of {@code w}, each bound to its planned primary. */
  private StreamMigrator.Shards shards(MigrationInfo w) {
    return (keyspace, shard) -> fencing.bind(w, keyspace, shard);
  }

  /** A source shard, bound to its planned primary (when the switch planned them); the port checks it. */
  private ShardRef source(MigrationInfo info, String shard) {
    return fencing.bind(info, info.sourceKeyspace(), shard);
  }

  private ShardRef target(MigrationInfo info, String shard) {
    return fencing.bind(info, info.targetKeyspace(), shard);
  }

  /**
   * Has the shards' primaries apply the topology just written: the barrier came down before it
   * (direct MySQL), but a vttablet learns that its writes are allowed only from the topology.
   */
  private void refresh(String keyspace, List<String> shards) {
    FanOut.forEach(shards, shard -> {
      ShardRef ref = new ShardRef(keyspace, shard);
      ports(ref).writeGate().refresh(ref);
    });
  }

  /**
   * The sequences of this switch, each shard bound to its planned primary; a sequence table's
   * keyspace may be outside the switch, and a shard it planned none for passes unchecked.
   */
  private TargetSequences sequences(MigrationInfo info) {
    return new TargetSequences(services.store(), (keyspace, shard) -> fencing.bind(info, keyspace, shard),
        shard -> ports(shard).sequences());
  }

  /** What serves the shard's primary: vttablet's RPCs or its MySQL. */
  private PrimaryPorts ports(ShardRef shard) {
    return services.primary(shard);
  }

  private StreamsPort streams(ShardRef shard) {
    return services.primary(shard).streams();
  }

  private static WriteScope scope(MigrationInfo info) {
    return info.migrationType() == MigrationType.TABLES ? WriteScope.tables(info.tables()) : WriteScope.wholeDatabase();
  }

  /**
   * Asks etcd before a MySQL change (docs/locks.md §9 point 3). The MySQL fence only turns away a
   * token older than one already used there, so until the workflow has re-acquired, a lock whose
   * lease is gone would still pass it: this check is what stops a step started before the loss was
   * noticed from stopping streams or writing a journal under it.
   */
  private void checkHeld(LockSet locks) {
    requireHeld(askHeld(locks), locks);
  }

  /**
   * {@link #checkHeld} in two halves, for a step that reads before it changes anything: asked when
   * the reads begin, the answer taken before the first change. etcd answers while the step reads,
   * not after (a few ms of each step in the write window). The answer is then older by the reads'
   * time: as if the step had checked first and read after, the order checkHeld keeps.
   */
  private LockCheck askHeld(LockSet locks) {
    return services.locks().ask(locks.locks());
  }

  private static void requireHeld(LockCheck check, LockSet locks) {
    List<LockStatus> statuses = check.statuses();
    for (int i = 0; i < statuses.size(); i++) {
      if (!statuses.get(i).held()) {
        LockToken token = locks.locks().get(i);
        throw new LockLostException(token.key(), "lock on " + token.resource() + " is lost: "
            + statuses.get(i).message());
      }
    }
  }
}
