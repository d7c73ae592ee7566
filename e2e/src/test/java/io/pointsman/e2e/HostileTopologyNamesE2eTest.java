package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.validate.ValidationReport;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names that come from etcd, not from the operator: another tool (or an attacker with write access
 * to the topology) puts a hostile shard name, MySQL host or database name into the records of a
 * running MoveTables. SwitchTraffic refuses each before changing anything, and every place that
 * shows the name (the workflow's failure, which the CLI's Status and the Temporal UI print, and the
 * validator's report) shows it escaped and cut: no terminal escape, no second line, no 10 KB echo.
 * The names carry SQL and shell that would leave a trace if anything ran them: a database and a
 * file that must not exist afterwards.
 */
@Timeout(300)
class HostileTopologyNamesE2eTest {
  private static final Logger log = LoggerFactory.getLogger(HostileTopologyNamesE2eTest.class);
  private static final String KS = "customer";
  private static final String WF = "commerce2customer";
  private static final String CANARY = "pw" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt())
      .substring(0, 6);
  /**
   * SQL, shell, terminal escapes, a bidi override and a second line, once within the 64 characters a
   * name may have and once at 10 KB; no '/', which would nest etcd keys.
   */
  private static final List<String> HOSTILE = List.of(
      "\u001b[2J\u202e`;CREATE DATABASE " + CANARY + ";--\n$(touch " + CANARY + ")",
      "\u001b[2J\u001b[31m<img src=x onerror=alert(1)>' OR '1'='1`; CREATE DATABASE " + CANARY + "; -- $(touch "
          + CANARY + ")\r\nFAKE: switched" + "A".repeat(10_000));

  @Test
  void hostileNamesInTopologyRecordsAreRefusedShownEscapedAndNeverRun() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      InputFuzzSnapshot before = InputFuzzSnapshot.take(world);
      TabletAlias primary = world.store().getRequired(world.store().keys().shard(KS, "-80")).value().primaryAlias();

      for (String name : HOSTILE) {
        // a shard directory of that name in the target keyspace, holding a copy of a real shard record
        String shardKey = world.paths.shardsPrefix(KS) + name + "/Shard";
        KeyValue real = world.etcd.getKVClient().get(bytes(world.paths.shard(KS, "-80"))).get(30, TimeUnit.SECONDS)
            .getKvs().get(0);
        world.etcd.getKVClient().put(bytes(shardKey), real.getValue()).get(30, TimeUnit.SECONDS);
        try {
          refusedAndShownSafely(world, "a hostile shard name");
        } finally {
          world.etcd.getKVClient().delete(bytes(shardKey)).get(30, TimeUnit.SECONDS);
        }

        // the target primary's tablet record naming a hostile MySQL host, then a hostile database
        for (UnaryOperator<Tablet> hostile : List.<UnaryOperator<Tablet>>of(
            t -> new Tablet(t.alias(), t.hostname(), t.portMap(), t.keyspace(), t.shard(), t.keyRange(), t.type(),
                t.dbNameOverride(), name.replace(' ', '/'), t.mysqlPort()),
            t -> new Tablet(t.alias(), t.hostname(), t.portMap(), t.keyspace(), t.shard(), t.keyRange(), t.type(),
                name, t.mysqlHostname(), t.mysqlPort()))) {
          Tablet original = world.store().getRequired(world.store().keys().tablet(primary)).value();
          world.store().update(world.store().keys().tablet(primary), hostile, TopologyStore.UNLOCKED);
          try {
            refusedAndShownSafely(world, "a hostile tablet record");
          } finally {
            world.store().update(world.store().keys().tablet(primary), t -> original, TopologyStore.UNLOCKED);
          }
        }
      }

      InputFuzzSnapshot after = InputFuzzSnapshot.take(world);
      assertThat(after.primaries()).isEqualTo(before.primaries());
      assertThat(withoutRevisions(after)).isEqualTo(withoutRevisions(before));
      assertThat(Path.of(CANARY)).as("a file the shell in the name would have created").doesNotExist();
      for (var ep : List.of(world.services.primaries().resolve(KS, "-80"), world.services.primaries()
          .resolve("commerce", "0"))) {
        assertThat(databases(world, ep)).as("databases on " + ep.address()).doesNotContain(CANARY);
      }
    }
  }

  /** SwitchTraffic fails, and its failure and the validator's report show the name safely. */
  private static void refusedAndShownSafely(SwitchWorld world, String what) {
    SwitchTrafficWorkflow wf = world.workflow(SwitchTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, KS, WF) + "-" + UUID.randomUUID());
    WorkflowClient.start(wf::switchTraffic, SwitchTrafficRequest.of(WF, KS));
    String failure;
    try {
      ActionResult r = WorkflowStub.fromTyped(wf).getResult(2, TimeUnit.MINUTES, ActionResult.class);
      throw new AssertionError(what + ": SwitchTraffic finished: " + r.currentState());
    } catch (WorkflowFailedException e) {
      StringBuilder sb = new StringBuilder();
      for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
        sb.append(t.getMessage()).append(" | ");
      }
      failure = sb.toString();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError(what + ": SwitchTraffic neither failed nor finished", e);
    }
    log.info("{}: {}", what, failure.substring(0, Math.min(600, failure.length())));
    assertShownSafely(what + ": the workflow's failure", failure);
    assertThat(failure).as(what).contains("\\u001b[2J");
    try {
      ValidationReport report = world.validator.validate(KS, WF);
      assertShownSafely(what + ": the validator's report", report.describe());
    } catch (RuntimeException e) {
      assertShownSafely(what + ": the validator's error", String.valueOf(e.getMessage()));
    }
  }

  private static void assertShownSafely(String where, String text) {
    assertThat(text).as(where).doesNotContainPattern("[\\p{Cntrl}\\u0080-\\u009f\\u202a-\\u202e\\u2028\\u2029]");
    assertThat(text).as(where).doesNotContain("A".repeat(500));
    assertThat(text.length()).as(where + ": length").isLessThan(4_000);
  }

  /** Planting and removing a record moves revisions; the keys and values must be the same. */
  private static List<String> withoutRevisions(InputFuzzSnapshot s) {
    List<String> out = new ArrayList<>();
    s.etcd().forEach((k, v) -> out.add(k + "=" + v.substring(v.indexOf(' ') + 1)));
    return out;
  }

  private static List<String> databases(SwitchWorld world, PrimaryEndpoint ep) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = world.services.pools().connection(ep); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW DATABASES")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
