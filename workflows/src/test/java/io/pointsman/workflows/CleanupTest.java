package io.pointsman.workflows;

import static io.pointsman.workflows.SwitchHarness.ALL_SWITCHED;
import static io.pointsman.workflows.SwitchHarness.NOTHING_SWITCHED;
import static io.pointsman.workflows.SwitchHarness.READS_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CompleteMigration and CancelMigration against mocked activities: their steps in today's order
 * under the locks, the check made again under the locks refusing with nothing changed, a dry run
 * that only reads, and a failed step's error in the result. No etcd, no MySQL.
 */
@Timeout(60)
class CleanupTest {
  /** Every call that changes the topology or a primary, or takes locks. */
  private static final Set<String> MUTATING = Set.of("acquireLocks", "holdLocks", "releaseLocks",
      "switchReads REPLICA BACKWARD", "switchReads RDONLY BACKWARD", "dropSources", "dropTargets", "deleteStreams",
      "deleteRoutingRules", "recordUnfinishedCleanup", "deleteUnfinishedCleanup");
  /** What Complete reads before and again under the locks: an unfinished run first, then the workflow. */
  private static final List<String> READ =
      List.of("readUnfinishedCleanup", "buildTrafficSwitcher", "getWorkflowState");
  /** Cancel also looks for a journal, which it must not cancel under. */
  private static final List<String> READ_CANCEL = concat(READ, List.of("checkJournals"));
  /** Before the locks both first ask whether the workflow is a Migrate, which they finalize instead. */
  private static final List<String> FIRST_READ = concat(List.of("readMigrateWorkflow"), READ);
  private static final List<String> FIRST_READ_CANCEL = concat(List.of("readMigrateWorkflow"), READ_CANCEL);

  /** A fresh harness for each test (JUnit makes one instance of the class per test), closed after it. */
  @AutoClose
  private final SwitchHarness h = new SwitchHarness();

  @Test
  void completeRecordsItselfThenDropsTheSourceTablesThenTheRoutingRulesThenTheStreams() {
    h.states(ALL_SWITCHED);

    Object result = h.complete(SwitchHarness.completeRequest());

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(((ActionResult) result).summary()).isEqualTo(
        "Successfully completed the commerce2customer workflow in the customer keyspace");
    assertThat(h.steps()).containsExactlyElementsOf(concat(FIRST_READ, List.of("acquireLocks"), READ,
        List.of("recordUnfinishedCleanup", "dropSources", "deleteRoutingRules", "deleteStreams",
            "deleteUnfinishedCleanup", "releaseLocks")));
    assertThat(h.calls()).contains("holdLocks");
    assertThat(h.firstArguments("dropSources")).containsExactly(SwitchHarness.INFO);
  }

  @Test
  void completeKeepingDataAndRoutingRulesOnlyDeletesTheStreams() {
    h.states(ALL_SWITCHED);

    Object result = h.complete(SwitchHarness.completeRequest().with(true, true, false, false));

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(after("acquireLocks")).containsExactlyElementsOf(concat(READ, List.of("recordUnfinishedCleanup",
        "deleteStreams", "deleteUnfinishedCleanup", "releaseLocks")));
  }

  @Test
  void cancelRecordsItselfThenDropsTheTargetTablesThenTheRoutingRulesThenTheStreams() {
    Object result = h.cancel(SwitchHarness.cancelRequest());

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(((ActionResult) result).summary()).isEqualTo(
        "Successfully cancelled the commerce2customer workflow in the customer keyspace");
    assertThat(h.steps()).containsExactlyElementsOf(concat(FIRST_READ_CANCEL, List.of("acquireLocks"), READ_CANCEL,
        List.of("recordUnfinishedCleanup", "dropTargets", "deleteRoutingRules", "deleteStreams",
            "deleteUnfinishedCleanup", "releaseLocks")));
  }

  @Test
  void cancelSwitchesReadsBackFirstWhenTheyWereSwitched() {
    h.states(READS_SWITCHED);

    Object result = h.cancel(SwitchHarness.cancelRequest());

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(after("acquireLocks")).containsExactlyElementsOf(concat(READ_CANCEL, List.of(
        "recordUnfinishedCleanup", "switchReads REPLICA BACKWARD", "switchReads RDONLY BACKWARD", "dropTargets",
        "deleteRoutingRules", "deleteStreams", "deleteUnfinishedCleanup", "releaseLocks")));
  }

  @Test
  void cancelOfSwitchedWritesIsRefusedBeforeTheLocksAndChangesNothing() {
    h.states(ALL_SWITCHED);

    Object result = h.cancel(SwitchHarness.cancelRequest());

    ApplicationFailure failure = failure(result);
    assertThat(failure.getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(failure).hasMessageContaining("because its writes have been switched; run ReverseTraffic first");
    assertThat(h.calls()).containsExactlyElementsOf(FIRST_READ);
  }

  @Test
  void cancelIsRefusedUnderTheLocksWhenWritesWereSwitchedWhileItWaited() {
    // a SwitchTraffic held the locks first: before them nothing was switched, under them writes are
    h.states(NOTHING_SWITCHED, ALL_SWITCHED);

    Object result = h.cancel(SwitchHarness.cancelRequest());

    assertRefusedUnderTheLocks(result, "because its writes have been switched",
        "dropTargets", "deleteStreams", "deleteRoutingRules");
  }

  @Test
  void completeIsRefusedUnderTheLocksWhenTrafficWasReversedWhileItWaited() {
    h.states(ALL_SWITCHED, READS_SWITCHED);

    Object result = h.complete(SwitchHarness.completeRequest());

    assertRefusedUnderTheLocks(result, "because you have not yet switched all read and write traffic",
        "deleteStreams", "dropSources", "deleteRoutingRules");
  }

  @Test
  void completeBeforeEverythingIsSwitchedIsRefusedBeforeTheLocks() {
    h.states(READS_SWITCHED);

    Object result = h.complete(SwitchHarness.completeRequest());

    assertThat(failure(result).getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(h.calls()).containsExactlyElementsOf(FIRST_READ);
  }

  @Test
  void aWorkflowEndedByAnotherActionWhileThisOneWaitedFailsNotFoundHavingChangedNothing() {
    AtomicInteger reads = new AtomicInteger();
    h.override("buildTrafficSwitcher", inv -> {
      if (reads.incrementAndGet() > 1) {
        throw ApplicationFailure.newNonRetryableFailure("workflow commerce2customer not found", "NOT_FOUND");
      }
      return SwitchHarness.INFO;
    });

    Object result = h.cancel(SwitchHarness.cancelRequest());

    ApplicationFailure failure = failure(result);
    assertThat(failure.getType()).isEqualTo("NOT_FOUND");
    assertThat(failure).hasMessageContaining("another action ended it while this CancelMigration waited for the"
        + " locks; nothing was changed");
    assertThat(after("acquireLocks")).containsExactly("readUnfinishedCleanup", "buildTrafficSwitcher", "releaseLocks");
  }

  @Test
  void aDryRunOfCompleteOnlyReads() {
    h.states(ALL_SWITCHED);

    Object result = h.complete(SwitchHarness.completeRequest().with(false, false, false, true));

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(((ActionResult) result).dryRunResults()).containsExactly(
        "Lock workflow customer/commerce2customer", "Lock keyspace commerce", "Lock keyspace customer",
        "Delete reverse vreplication streams on sources: commerce [0] workflow commerce2customer_reverse",
        "Delete vreplication streams on targets: customer [-80, 80-] workflow commerce2customer",
        "Dropping these tables from the database and removing them from the vschema for keyspace commerce:"
            + " [customer]",
        "Denied tables records on [customer] will be removed from commerce [0]",
        "Routing rules for participating tables will be deleted",
        "Unlock keyspace customer", "Unlock keyspace commerce", "Unlock workflow customer/commerce2customer");
    assertThat(h.calls()).containsExactlyElementsOf(FIRST_READ).doesNotContainAnyElementsOf(MUTATING);
  }

  @Test
  void aDryRunOfCancelOnlyReads() {
    h.states(READS_SWITCHED);

    Object result = h.cancel(SwitchHarness.cancelRequest().with(false, false, true));

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(((ActionResult) result).dryRunResults()).contains(
        "Switch reads of tablet type REPLICA back to keyspace commerce in cells [zone1]",
        "Stop and delete vreplication streams on targets: customer [-80, 80-] workflow commerce2customer",
        "Dropping these tables from the database for keyspace customer: [customer]");
    assertThat(h.calls()).containsExactlyElementsOf(FIRST_READ_CANCEL).doesNotContainAnyElementsOf(MUTATING);
  }

  @ParameterizedTest(name = "{0} fails")
  @ValueSource(strings = {"deleteStreams", "dropSources", "deleteRoutingRules"})
  void aFailedCompleteStepEndsTheRunWithItsErrorAndStopsThere(String failing) {
    h.states(ALL_SWITCHED);
    h.fail(failing);

    Object result = h.complete(SwitchHarness.completeRequest());

    assertEndedAtTheFailedStep(result, failing, "CompleteMigration");
  }

  @ParameterizedTest(name = "{0} fails")
  @ValueSource(strings = {"switchReads RDONLY BACKWARD", "dropTargets", "deleteStreams", "deleteRoutingRules"})
  void aFailedCancelStepEndsTheRunWithItsErrorAndStopsThere(String failing) {
    h.states(READS_SWITCHED);
    h.fail(failing);

    Object result = h.cancel(SwitchHarness.cancelRequest());

    assertEndedAtTheFailedStep(result, failing, "CancelMigration");
  }

  /**
   * Refused FAILED_PRECONDITION by the check made again under the locks: after taking them it only
   * read and released them, and none of {@code notRun} ran.
   */
  private void assertRefusedUnderTheLocks(Object result, String message, String... notRun) {
    ApplicationFailure failure = failure(result);
    assertThat(failure.getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(failure).hasMessageContaining(message);
    assertThat(after("acquireLocks")).containsExactlyElementsOf(concat(READ, List.of("releaseLocks")));
    assertThat(h.calls()).doesNotContain(notRun);
  }

  /**
   * The run ended with the failed step's error, which asks for a rerun of {@code action}, and only
   * released the locks after it: neither action compensates, each step converges when rerun.
   */
  private void assertEndedAtTheFailedStep(Object result, String failing, String action) {
    ApplicationFailure failure = failure(result);
    assertThat(failure.getType()).isEqualTo("INTERNAL");
    assertThat(failure).hasMessageContaining("injected failure of " + failing)
        .hasMessageContaining("Rerun " + action + " to finish.");
    assertThat(after(failing)).containsExactly("releaseLocks");
  }

  /** The steps after the first call of {@code label}. */
  private List<String> after(String label) {
    List<String> calls = h.steps();
    return calls.subList(calls.indexOf(label) + 1, calls.size());
  }

  private static ApplicationFailure failure(Object result) {
    assertThat(result).isInstanceOf(WorkflowFailedException.class);
    Throwable cause = ((WorkflowFailedException) result).getCause();
    assertThat(cause).isInstanceOf(ApplicationFailure.class);
    return (ApplicationFailure) cause;
  }

  @SafeVarargs
  private static List<String> concat(List<String>... parts) {
    return Stream.of(parts).flatMap(List::stream).toList();
  }
}
