package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.sandbox.load.LoadOptions;
import io.pointsman.sandbox.load.LoadVerifier;
import io.pointsman.sandbox.load.LoadWriter;
import io.pointsman.sandbox.load.VerificationReport;
import io.pointsman.sandbox.load.WriteFactory;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SwitchTraffic → ReverseTraffic → SwitchTraffic → Complete under constant write load through the
 * router: every acknowledged write is where the topology serves it, exactly once.
 */
@Timeout(900)
class MoveTablesFullCycleTest {
  private static final Logger log = LoggerFactory.getLogger(MoveTablesFullCycleTest.class);

  private static String id(String action) {
    return action + "-customer.commerce2customer-" + UUID.randomUUID();
  }

  @Test
  void aFullCycleUnderLoadLosesNoAcknowledgedWrite() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      LoadWriter load = LoadWriter.start(world.router(), LoadOptions.builder()
          .ratePerSecond(40).writers(4).duration(Duration.ofMinutes(8))
          .writes(WriteFactory.customerInserts("customer", 1_000_000)).build());
      world.onClose(load);
      SwitchTrafficRequest request = SwitchTrafficRequest.of("commerce2customer", "customer");

      ActionResult first = world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC))
          .switchTraffic(request);
      assertThat(first.currentState()).isEqualTo(ALL_SWITCHED);
      ActionResult back = world.workflow(ReverseTrafficWorkflow.class, id(Pointsman.REVERSE_TRAFFIC))
          .reverseTraffic(request);
      assertThat(back.summary()).isEqualTo("ReverseTraffic was successful for workflow customer.commerce2customer");
      assertThat(back.currentState()).isEqualTo(NOT_SWITCHED);
      ActionResult again = world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC))
          .switchTraffic(request);
      assertThat(again.currentState()).isEqualTo(ALL_SWITCHED);
      ActionResult done = world.workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION))
          .complete(CompleteRequest.of("commerce2customer", "customer"));
      assertThat(done.summary()).isEqualTo("Successfully completed the commerce2customer workflow in the customer keyspace");

      // the load must span the actions: at least 50 writes acknowledged, however fast they went
      await().atMost(Duration.ofSeconds(30)).until(() -> load.loadLog().acknowledged() > 50);
      load.close();
      VerificationReport report = LoadVerifier.forCustomers(world.router()).verify(load.loadLog());
      log.info("load across the cycle: {}", report.summary());
      assertThat(report.acknowledged()).as(report.summary()).isGreaterThan(50);
      assertThat(report.missing()).as(report.summary()).isEmpty();
      assertThat(report.duplicated()).as(report.summary()).isEmpty();
      assertThat(report.lostNothing()).as(report.summary()).isTrue();

      assertThat(world.store().get(world.store().keys().routingRules())).isEmpty();
      assertThat(world.services.streams().read(world.services.primaries().resolve("commerce", "0"),
          "commerce2customer_reverse")).isEmpty();
    }
  }
}
