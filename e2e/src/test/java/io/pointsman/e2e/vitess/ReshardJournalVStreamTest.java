package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import binlogdata.Binlogdata.Journal;
import binlogdata.Binlogdata.KeyspaceShard;
import binlogdata.Binlogdata.MigrationType;
import binlogdata.Binlogdata.ShardGtid;
import binlogdata.Binlogdata.VGtid;
import com.google.protobuf.TextFormat;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resharding journal reaches every change-stream consumer: on a real Vitess 24 cluster with a
 * Reshard of {@code customer/0} into {@code -80,80-} (vtctldclient created it, real VReplication
 * copied it), a VStream consumer with {@code stop_on_reshard} follows the switches as a CDC connector
 * does. When a switch stops writes on the shards it streams, vtgate hands it the JOURNAL event (from
 * every participant) and ends the stream; the consumer then opens a new stream on the journal's shard
 * GTIDs. Under a constant write load through vtgate, pointsman switches forward and reverses
 * {@link #CYCLES} times (a journal on {@code 0}, then one on {@code -80} and {@code 80-}, per cycle),
 * then vtctldclient does one cycle for comparison. For every journal:
 *
 * <ul>
 *   <li>the event carries what the write switch stored in {@code _vt.resharding_journal} on each
 *       source primary (participants: the old shards; shard GTIDs: the new ones);
 *   <li>a consumer that resumes after the switch from a VGTID saved before it also gets the journal,
 *       after exactly the row changes the following consumer got from that VGTID on;
 * </ul>
 * and, after each test, every write vtgate acknowledged was seen exactly once across the chain of
 * streams (before a journal on the old shards, after it on the new ones).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReshardJournalVStreamTest {
  private static final Logger log = LoggerFactory.getLogger(ReshardJournalVStreamTest.class);
  /** Forward/reverse cycles of pointsman: two journals each, the 20 journals the issue asks for. */
  static final int CYCLES = 10;
  private static final String WORKFLOW = "cust2cust";
  private static final String KEYSPACE = "customer";
  private static final List<String> SOURCE = List.of("0");
  private static final List<String> TARGETS = List.of("-80", "80-");
  /** Far above the seeded customers 1-4; the marker is written before the load, after the consumer opened. */
  private static final long MARKER_ID = 99_999;
  private static final long FIRST_ID = 100_000;
  private static final Duration JOURNAL_WAIT = Duration.ofSeconds(60);

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> ReshardCluster.start(WORKFLOW));
  private static ManagedChannel vtgate;
  private static VtgateLoad load;
  /** The chain of streams the following consumer went through, the running one last. */
  private static final List<VStreamConsumer> chain = new ArrayList<>();
  private static int runs;
  private static int journalsFollowed;
  private static int failedLogged;
  private static String lastAction;

  @BeforeAll
  static void start() throws Exception {
    vtgate = NettyChannelBuilder.forTarget(cluster().env("POINTSMAN_VTGATE_GRPC")).usePlaintext().build();
    VStreamConsumer first = VStreamConsumer.open(vtgate, vgtid(KEYSPACE, "0", "current"), "customer");
    chain.add(first);
    // "current" is resolved when the tablet starts streaming, and it then sends that position as the
    // first VGTID: writes from there on are owed to the consumer (the marker checks it)
    await("the consumer's start position").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> first.checkpoint().isPresent() || first.ended().isDone());
    cluster().execute(KEYSPACE, "insert into customer(customer_id, email) values (" + MARKER_ID + ", 'marker@example.com')");
    try {
      await("the consumer streams shard 0").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
          .until(() -> first.rowIds().contains(MARKER_ID) || first.ended().isDone());
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("the marker did not reach the consumer: " + first.state() + "; diagnostics in "
          + VitessDiagnostics.dump(cluster(), "vstream-start", KEYSPACE, WORKFLOW), e);
    }
    assertThat(first.rowIds()).as(first.state()).contains(MARKER_ID);
    load = new VtgateLoad(cluster(), 50, 8, FIRST_ID);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (load != null) {
      load.close();
    }
    chain.forEach(VStreamConsumer::close);
    if (vtgate != null) {
      vtgate.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /**
   * Every write the load had acknowledged so far arrives, once, in the chain of streams; no row
   * change of the load arrives twice, acknowledged or not (a failed write may have committed, so it
   * may arrive once). Failed writes are counted in the log, not asserted: write availability during
   * the switch is {@link ReshardOnVitessTest}'s subject, and on a loaded machine a write switch of
   * either tool fails some writes with "primary is not serving" (see docs/journal.md §4).
   */
  @AfterEach
  void everyAcknowledgedWriteWasStreamedOnce() {
    long next = load.nextId();
    await("writes flow again").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .until(() -> load.ackedFrom(next) >= 10);
    logFailedWrites();
    List<Long> acked = load.snapshot().acked();
    await("the consumer received every acknowledged write").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> seenCounts().keySet().containsAll(acked));
    Map<Long, Integer> twice = seenCounts().entrySet().stream().filter(e -> e.getValue() > 1)
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    assertThat(twice).as("row changes streamed more than once, across " + chain).isEmpty();
    VtgateLoad.LoadReport seen = load.snapshot();
    log.info("{} acknowledged writes streamed exactly once across {} streams and {} journals; load: {}",
        acked.size(), chain.size(), journalsFollowed, seen.summary());
  }

  @Test
  @Order(1)
  void everyPointsmanJournalReachesTheConsumerAndOneResumingFromBeforeTheSwitch() {
    List<Duration> cycles = new ArrayList<>();
    for (int i = 1; i <= CYCLES; i++) {
      long t0 = System.nanoTime();
      follow("pointsman SwitchTraffic " + i, SOURCE, TARGETS, () -> pointsmanSwitch().currentState(),
          ALL_SWITCHED);
      follow("pointsman ReverseTraffic " + i, TARGETS, SOURCE, () -> pointsmanReverse().currentState(),
          NOT_SWITCHED);
      cycles.add(Duration.ofNanos(System.nanoTime() - t0));
    }
    Duration total = cycles.stream().reduce(Duration.ZERO, Duration::plus);
    log.info("{} pointsman cycles ({} journals followed) in {} ms, per cycle {} ms; 20 journals would take about {} s",
        CYCLES, 2 * CYCLES, total.toMillis(), cycles.stream().map(Duration::toMillis).toList(),
        total.toMillis() * 10 / CYCLES / 1000);
  }

  /** The same consumer through vtctldclient's own Reshard SwitchTraffic and ReverseTraffic, for comparison. */
  @Test
  @Order(2)
  void vtctldclientsJournalsReachTheConsumerTheSameWay() {
    follow("vtctldclient SwitchTraffic", SOURCE, TARGETS,
        () -> { vtctldclient("switchtraffic"); return vtctldState(); }, ALL_SWITCHED);
    follow("vtctldclient ReverseTraffic", TARGETS, SOURCE,
        () -> { vtctldclient("reversetraffic"); return vtctldState(); }, NOT_SWITCHED);
  }

  /**
   * The following consumer (the last stream of the chain, on {@code from}) gets the journal of
   * {@code action}, which stops writes on {@code from}, from every shard of {@code from}; its stream
   * ends; a consumer opened afterwards from a VGTID saved before the action gets the same journal after
   * the same row changes; the chain goes on with a stream on {@code to} from the journal's shard GTIDs.
   */
  private static void follow(String what, List<String> from, List<String> to, Supplier<String> action, String state) {
    try {
      followOnce(what, from, to, action, state);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(what + ": " + e.getMessage() + "\nconsumer: " + chain.get(chain.size() - 1).state()
          + "\ndiagnostics in " + VitessDiagnostics.dump(cluster(), "vstream", KEYSPACE, WORKFLOW), e);
    }
  }

  /**
   * Logs how many writes failed since the last action started, by message, and fails on any but
   * vtgate's own at a Reshard cut-over ({@link VtgateOwnFailures}), which it fails whichever tool
   * switched.
   */
  private static void logFailedWrites() {
    List<VtgateLoad.FailedWrite> failed = load.snapshot().failed();
    List<VtgateLoad.FailedWrite> recent = failed.subList(failedLogged, failed.size());
    if (lastAction != null) {
      log.info("writes failed during {} and after it until the next action: {} {}", lastAction, recent.size(), recent.stream()
          .map(f -> f.message().replaceAll("\\(CallerID.*", "").replaceAll("[0-9]{4,}", "N"))
          .collect(Collectors.groupingBy(m -> m.length() > 120 ? m.substring(0, 120) : m, TreeMap::new,
              Collectors.counting())));
    }
    failedLogged = failed.size();
    String during = lastAction;
    lastAction = null;
    assertThat(recent).as("writes failed during " + during).allSatisfy(f ->
        assertThat(VtgateOwnFailures.atReshardCutOver(f.message())).as(f.message()).isTrue());
  }

  private static void followOnce(String what, List<String> from, List<String> to, Supplier<String> action, String state) {
    logFailedWrites();
    lastAction = what;
    VStreamConsumer current = chain.get(chain.size() - 1);
    await(current + " has a position to resume from").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> current.checkpoint().isPresent());
    VStreamConsumer.Checkpoint saved = current.checkpoint().orElseThrow();
    assertThat(saved.vgtid().getShardGtidsList()).extracting(ShardGtid::getShard).containsExactlyInAnyOrderElementsOf(from);

    long t0 = System.nanoTime();
    assertThat(action.get()).as(what).isEqualTo(state);
    long switched = System.nanoTime();
    VStreamConsumer.Ending ending = current.ended().orTimeout(JOURNAL_WAIT.toSeconds(), TimeUnit.SECONDS)
        .exceptionally(timeout -> null).join();
    assertThat(ending).as(what + ": " + current + " did not end within " + JOURNAL_WAIT + "; journals received: "
        + current.journals()).isNotNull();
    assertThat(ending.ok()).as(what + ": " + current + " ended with " + ending.status()).isTrue();
    Map<String, Journal> journals = assertJournalFromEveryParticipant(what, current, from, to);
    Journal journal = journals.values().iterator().next();
    // the journal is written in the middle of the action, so it may arrive before the action returns
    long delivered = current.journals().stream().mapToLong(VStreamConsumer.JournalEvent::receivedNanos).max().orElseThrow();

    try (VStreamConsumer late = VStreamConsumer.open(vtgate, saved.vgtid(), "customer")) {
      VStreamConsumer.Ending lateEnding = late.ended().orTimeout(JOURNAL_WAIT.toSeconds(), TimeUnit.SECONDS)
          .exceptionally(timeout -> null).join();
      assertThat(lateEnding).as(what + ": " + late + " (resumed after the switch) did not end within "
          + JOURNAL_WAIT + "; journals received: " + late.journals()).isNotNull();
      assertThat(lateEnding.ok()).as(what + ": " + late + " ended with " + lateEnding.status()).isTrue();
      assertThat(assertJournalFromEveryParticipant(what + " (resumed)", late, from, to)).isEqualTo(journals);
      List<Long> after = current.rowIds().subList(saved.rows(), current.rowIds().size());
      assertThat(late.rowIds()).as(what + ": the resumed consumer's row changes").containsExactlyInAnyOrderElementsOf(after);
    }

    chain.add(VStreamConsumer.open(vtgate, VGtid.newBuilder().addAllShardGtids(journal.getShardGtidsList()).build(),
        "customer"));
    journalsFollowed++;
    log.info("{}: journal {} reached the consumer from every participant {} ms after the action returned"
        + " (negative: before; action {} ms); next stream {}",
        what, journal.getId(), (delivered - switched) / 1_000_000, (switched - t0) / 1_000_000,
        chain.get(chain.size() - 1));
  }

  /**
   * The consumer got one JOURNAL event from each shard of {@code from}, each the journal stored on
   * that shard's primary, all the same journal but for the local position (each source's own); a
   * Reshard's: participants {@code from}, shard GTIDs on {@code to}. Returns the journal of each shard.
   */
  private static Map<String, Journal> assertJournalFromEveryParticipant(String what, VStreamConsumer c, List<String> from,
      List<String> to) {
    List<VStreamConsumer.JournalEvent> events = c.journals();
    assertThat(events).as(what + ": JOURNAL events of " + c).extracting(VStreamConsumer.JournalEvent::shard)
        .containsExactlyInAnyOrderElementsOf(from);
    Journal journal = events.get(0).journal().toBuilder().clearLocalPosition().build();
    assertThat(events).extracting(e -> e.journal().toBuilder().clearLocalPosition().build()).allMatch(journal::equals);
    assertThat(journal.getMigrationType()).isEqualTo(MigrationType.SHARDS);
    assertThat(journal.getParticipantsList()).extracting(KeyspaceShard::getKeyspace).containsOnly(KEYSPACE);
    assertThat(journal.getParticipantsList()).extracting(KeyspaceShard::getShard).containsExactlyInAnyOrderElementsOf(from);
    assertThat(journal.getShardGtidsList()).extracting(ShardGtid::getKeyspace).containsOnly(KEYSPACE);
    assertThat(journal.getShardGtidsList()).extracting(ShardGtid::getShard).containsExactlyInAnyOrderElementsOf(to);
    assertThat(journal.getShardGtidsList()).extracting(ShardGtid::getGtid).allMatch(g -> !g.isEmpty());
    Map<String, Journal> byShard = new TreeMap<>();
    for (VStreamConsumer.JournalEvent e : events) {
      assertThat(storedJournal(e.shard(), journal.getId())).as(what + ": the journal stored on " + e.shard())
          .isEqualTo(e.journal());
      byShard.put(e.shard(), e.journal());
    }
    return byShard;
  }

  /** {@code _vt.resharding_journal}'s row on the shard's primary, read from its MariaDB. */
  private static Journal storedJournal(String shard, long id) {
    VitessCluster.Tablet primary = cluster().tablets().stream()
        .filter(t -> t.keyspace().equals(KEYSPACE) && t.shard().equals(shard)).findFirst().orElseThrow();
    try (Connection c = cluster().tabletDba(primary);
        PreparedStatement st = c.prepareStatement("select val from _vt.resharding_journal where id = ?")) {
      st.setLong(1, id);
      try (ResultSet rs = st.executeQuery()) {
        assertThat(rs.next()).as("journal " + id + " on " + primary.alias()).isTrue();
        Journal.Builder b = Journal.newBuilder();
        TextFormat.merge(rs.getString(1), b);
        return b.build();
      }
    } catch (Exception e) {
      throw new AssertionError("reading journal " + id + " on " + primary.alias() + ": " + e, e);
    }
  }

  /** How often each id of the load (and the marker) arrived across the chain. */
  private static Map<Long, Integer> seenCounts() {
    Map<Long, Integer> counts = new TreeMap<>();
    for (VStreamConsumer c : List.copyOf(chain)) {
      for (long id : c.rowIds()) {
        if (id >= MARKER_ID) {
          counts.merge(id, 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  private static VGtid vgtid(String keyspace, String shard, String gtid) {
    return VGtid.newBuilder().addShardGtids(ShardGtid.newBuilder().setKeyspace(keyspace).setShard(shard).setGtid(gtid))
        .build();
  }

  private static ActionResult pointsmanSwitch() {
    return worker().workflow(SwitchTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, KEYSPACE, WORKFLOW) + "-" + (++runs))
        .switchTraffic(SwitchTrafficRequest.of(WORKFLOW, KEYSPACE));
  }

  private static ActionResult pointsmanReverse() {
    return worker().workflow(ReverseTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.REVERSE_TRAFFIC, KEYSPACE, WORKFLOW) + "-" + (++runs))
        .reverseTraffic(SwitchTrafficRequest.of(WORKFLOW, KEYSPACE));
  }

  private static void vtctldclient(String action) {
    cluster().vtctldclient("Reshard", "--workflow", WORKFLOW, "--target-keyspace", KEYSPACE, action);
  }

  private static String vtctldState() {
    return cluster().trafficState("Reshard", KEYSPACE, WORKFLOW);
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  private static PointsmanOnVitess worker() {
    return VITESS.worker();
  }
}
