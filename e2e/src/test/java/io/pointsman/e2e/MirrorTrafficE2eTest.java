package io.pointsman.e2e;

import static io.pointsman.e2e.MirrorRecords.allowTargetReads;
import static io.pointsman.e2e.MirrorRecords.assertServed;
import static io.pointsman.e2e.MirrorRecords.assertTargetReadsAllowed;
import static io.pointsman.e2e.MirrorRecords.global;
import static io.pointsman.e2e.MirrorRecords.globalExists;
import static io.pointsman.e2e.MirrorRecords.put;
import static io.pointsman.e2e.MirrorRecords.rule;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static io.pointsman.e2e.TrafficStates.READS_SWITCHED;
import static io.pointsman.e2e.WorkflowFailures.typedFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.KeyValue;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.MirrorTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import vschema.Vschema;

/**
 * pointsman's MirrorTraffic on the sandbox, one MoveTables (commerce → customer, tables corder and
 * customer) taken through the cases in order: mirroring the reads writes the workflow's mirror
 * rules into the global record and every cell's SrvVSchema and lets the target primaries serve reads
 * of the denied tables; a new percent replaces the old; a partial set of rules, a switched tablet
 * type and the reverse workflow are refused with nothing changed; percent 0 removes the rules and the
 * target primaries refuse those reads again; a lock lost before the change leaves everything as it
 * was; a failed mirroring leaves allow_reads as the rules say.
 * A mirror rule of a table the workflow does not move is never touched. On real Vitess,
 * MirrorTrafficOnVitessTest holds pointsman's MirrorTraffic against vtctldclient's.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MirrorTrafficE2eTest {
  private static final String WF = "commerce2customer";
  private static final Vschema.MirrorRule UNRELATED = rule("commerce.product", "customer.product", 3);
  private static final List<TabletType> READS = List.of(TabletType.REPLICA, TabletType.RDONLY);

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().faults(faults).resetFaultsAfterEach()
      .createMoveTables().build();

  @Test
  @Order(1)
  void mirroringTheReadsWritesTheRulesServesThemAndLetsTheTargetPrimariesServeTheReads() throws Exception {
    put(world(), Vschema.MirrorRules.newBuilder().addRules(UNRELATED).build());

    ActionResult result = mirror(MirrorTrafficRequest.of(WF, "customer").withTabletTypes(READS).withPercent(25));

    assertThat(result.summary()).isEqualTo("MirrorTraffic was successful for workflow customer.commerce2customer");
    assertThat(result.startState()).isEqualTo(NOT_SWITCHED);
    assertThat(result.currentState()).isEqualTo(NOT_SWITCHED);
    Vschema.MirrorRules expected = readRules(25);
    assertThat(global(world()).getRulesList()).containsExactlyInAnyOrderElementsOf(expected.getRulesList());
    assertThat(global(world()).getRules(0)).as("the unrelated rule stays first").isEqualTo(UNRELATED);
    assertServed(world(), global(world()));
    assertTargetReadsAllowed(world(), true, "while the reads are mirrored");
    // Validate knows the mirrored state: the primaries' allow_reads is no violation while mirrored
    world().assertDefinedState("customer", WF, "NOT_SWITCHED");
  }

  @Test
  @Order(2)
  void aNewPercentReplacesTheOld() throws Exception {
    mirror(MirrorTrafficRequest.of(WF, "customer").withTabletTypes(READS).withPercent(50));

    assertThat(global(world()).getRulesList()).containsExactlyInAnyOrderElementsOf(readRules(50).getRulesList());
    assertServed(world(), global(world()));
  }

  /** As Vitess: the replica and rdonly rules exist, the primary's do not, so asking for all three is refused. */
  @Test
  @Order(3)
  void aPartialSetOfTheWorkflowsRulesIsRefusedAndNothingChanges() throws Exception {
    WorldSnapshot before = WorldSnapshot.take(world());

    ApplicationFailure refused = refusal(MirrorTrafficRequest.of(WF, "customer").withPercent(10));

    assertThat(refused.getType()).isEqualTo(ErrorCode.ALREADY_EXISTS.name());
    assertThat(refused.getOriginalMessage()).startsWith("wrong number of pre-existing mirror rules: 4 of the 6 rules")
        .endsWith("Nothing was changed");
    before.assertNothingChangedIn(world(), "after the refused MirrorTraffic");
  }

  @Test
  @Order(4)
  void theDryRunSaysWhatItWouldDoAndChangesNothing() throws Exception {
    WorldSnapshot before = WorldSnapshot.take(world());

    ActionResult plan = mirror(MirrorTrafficRequest.of(WF, "customer").withTabletTypes(READS).withPercent(0)
        .withDryRun(true));

    assertThat(plan.dryRunResults()).containsExactly("Lock workflow customer/" + WF, "Lock keyspace customer",
        "Mirroring 0.00 percent of traffic from keyspace commerce to keyspace customer for tablet types"
            + " [REPLICA,RDONLY]",
        "Unlock keyspace customer", "Unlock workflow customer/" + WF);
    before.assertNothingChangedIn(world(), "after the dry run");
  }

  @Test
  @Order(5)
  void percentZeroRemovesTheWorkflowsRulesAndTheTargetPrimariesRefuseTheReadsAgain() throws Exception {
    mirror(MirrorTrafficRequest.of(WF, "customer").withTabletTypes(READS).withPercent(0));

    assertThat(global(world()).getRulesList()).containsExactly(UNRELATED);
    assertServed(world(), global(world()));
    assertTargetReadsAllowed(world(), false, "once nothing of the workflow is mirrored");
    world().assertDefinedState("customer", WF, "NOT_SWITCHED");
  }

  /**
   * The target keyspace's lock is revoked behind the workflow's back while its mirroring step waits
   * to run: the step, fenced by the revoked lock, changes nothing, and the action fails LOCK_LOST
   * saying to run it again.
   */
  @Test
  @Order(6)
  void aLockLostBeforeTheMirroringChangesNothing() throws Exception {
    WorldSnapshot before = WorldSnapshot.take(world());
    FaultInjection.Block block = faults.blockOnce("mirrorTableTraffic", FaultInjection.When.BEFORE);
    MirrorTrafficWorkflow wf = world().workflow(MirrorTrafficWorkflow.class, "MirrorTraffic-" + UUID.randomUUID());
    WorkflowClient.start(wf::mirrorTraffic, MirrorTrafficRequest.of(WF, "customer").withTabletTypes(READS));
    await().atMost(Duration.ofMinutes(2)).until(block::reached);

    List<KeyValue> keyspaceLocks = WorldSnapshot.locksUnder(world(), world().paths.keyspaceDir("customer"));
    assertThat(keyspaceLocks).as("the target keyspace's lock").hasSize(1);
    assertThat(WorldSnapshot.locksUnder(world(), world().paths.keyspaceDir("commerce")))
        .as("the source keyspace's lock, which Vitess's MirrorTraffic does not take either").isEmpty();
    world().etcd.getLeaseClient().revoke(keyspaceLocks.get(0).getLease()).get(30, TimeUnit.SECONDS);
    block.release();

    ApplicationFailure failed = typedFailure(catchThrowable(() -> WorkflowStub.fromTyped(wf).getResult(Object.class)));
    assertThat(failed.getType()).isEqualTo(ErrorCode.LOCK_LOST.name());
    assertThat(failed.getOriginalMessage()).contains("Rerun MirrorTraffic");
    before.assertNothingChangedIn(world(), "after the mirroring under a revoked lock");
  }

  /**
   * The target primaries allow reads with nothing mirrored (what a mirroring that failed between its
   * changes leaves) and the mirroring fails before it changes anything: the action sets allow_reads
   * from the rules as they are, and says to run it again.
   */
  @Test
  @Order(7)
  void aFailedMirroringLeavesTheTargetPrimariesAllowingReadsOnlyWhileMirrored() throws Exception {
    allowTargetReads(world());
    faults.failOnce("mirrorTableTraffic", FaultInjection.When.BEFORE);

    ApplicationFailure failed = refusal(MirrorTrafficRequest.of(WF, "customer").withTabletTypes(READS));

    assertThat(failed.getOriginalMessage()).contains("Rerun MirrorTraffic");
    assertThat(faults.calls()).extracting(FaultInjection.Call::step).contains("allowTargetReadsWhileMirrored");
    assertTargetReadsAllowed(world(), false, "after the failed mirroring, nothing being mirrored");
    assertThat(global(world()).getRulesList()).containsExactly(UNRELATED);
  }

  @Test
  @Order(8)
  void switchedReadsAreRefusedButTheWritesCanStillBeMirrored() throws Exception {
    world().workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-reads-" + UUID.randomUUID())
        .switchTraffic(SwitchTrafficRequest.of(WF, "customer").withTabletTypes(READS));
    WorldSnapshot before = WorldSnapshot.take(world());

    ApplicationFailure switched = refusal(MirrorTrafficRequest.of(WF, "customer"));
    assertThat(switched.getType()).isEqualTo(ErrorCode.FAILED_PRECONDITION.name());
    assertThat(switched.getOriginalMessage()).isEqualTo("cannot mirror [replica,rdonly] traffic for workflow " + WF
        + " at this time: traffic for those tablet types is switched; nothing was changed");
    before.assertNothingChangedIn(world(), "after the refusal");

    ActionResult writes = mirror(MirrorTrafficRequest.of(WF, "customer").withTabletTypes(List.of(TabletType.PRIMARY))
        .withPercent(5));
    assertThat(writes.currentState()).isEqualTo(READS_SWITCHED);
    assertThat(global(world()).getRulesList()).containsExactlyInAnyOrder(UNRELATED,
        rule("commerce.corder", "customer.corder", 5), rule("commerce.customer", "customer.customer", 5));
    assertTargetReadsAllowed(world(), true, "while the primary traffic is mirrored");

    mirror(MirrorTrafficRequest.of(WF, "customer").withTabletTypes(List.of(TabletType.PRIMARY)).withPercent(0));
    assertThat(global(world()).getRulesList()).containsExactly(UNRELATED);
    assertTargetReadsAllowed(world(), false, "once the primary traffic is no longer mirrored");
  }

  /** Vitess keeps no MirrorRules record without a rule; neither does pointsman once it removed the last. */
  @Test
  @Order(9)
  void removingTheLastRuleDeletesTheRecord() throws Exception {
    put(world(), Vschema.MirrorRules.newBuilder().addRules(rule("commerce.corder", "customer.corder", 5))
        .addRules(rule("commerce.customer", "customer.customer", 5)).build());

    mirror(MirrorTrafficRequest.of(WF, "customer").withTabletTypes(List.of(TabletType.PRIMARY)).withPercent(0));

    assertThat(globalExists(world())).as("the global MirrorRules record").isFalse();
    assertServed(world(), Vschema.MirrorRules.getDefaultInstance());
  }

  /** Once the writes are switched, neither the workflow nor its reverse one (what ReverseTraffic switches) may mirror. */
  @Test
  @Order(10)
  void afterTheWriteSwitchTheWorkflowAndItsReverseAreRefused() throws Exception {
    world().workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-writes-" + UUID.randomUUID())
        .switchTraffic(SwitchTrafficRequest.of(WF, "customer").withTabletTypes(List.of(TabletType.PRIMARY)));
    WorldSnapshot before = WorldSnapshot.take(world());

    ApplicationFailure switched = refusal(MirrorTrafficRequest.of(WF, "customer")
        .withTabletTypes(List.of(TabletType.PRIMARY)));
    assertThat(switched.getOriginalMessage()).isEqualTo("cannot mirror [primary] traffic for workflow " + WF
        + " at this time: traffic for those tablet types is switched; nothing was changed");
    ApplicationFailure reverse = refusal(MirrorTrafficRequest.of(WF + "_reverse", "commerce"));
    assertThat(reverse.getType()).isEqualTo(ErrorCode.INVALID_ARGUMENT.name());
    assertThat(reverse.getOriginalMessage())
        .isEqualTo("invalid action for reverse workflow: MirrorTraffic; nothing was changed");
    before.assertNothingChangedIn(world(), "after the refusals");
  }

  /** The four rules of the moved tables' replica and rdonly reads, at {@code percent}. */
  private static Vschema.MirrorRules readRules(float percent) {
    Vschema.MirrorRules.Builder b = Vschema.MirrorRules.newBuilder().addRules(UNRELATED);
    for (String table : List.of("corder", "customer")) {
      for (String type : List.of("replica", "rdonly")) {
        b.addRules(rule("commerce." + table + "@" + type, "customer." + table, percent));
      }
    }
    return b.build();
  }

  private static ActionResult mirror(MirrorTrafficRequest request) {
    return world().workflow(MirrorTrafficWorkflow.class, "MirrorTraffic-" + UUID.randomUUID()).mirrorTraffic(request);
  }

  private static ApplicationFailure refusal(MirrorTrafficRequest request) {
    Throwable failed = catchThrowable(() -> mirror(request));
    assertThat(failed).as("MirrorTraffic of " + request + " fails").isNotNull();
    return typedFailure(failed);
  }

  private static SwitchWorld world() {
    return WORLD.world();
  }
}
