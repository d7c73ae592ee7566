package io.pointsman.e2e.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.sandbox.load.LoadOptions;
import io.pointsman.sandbox.load.LoadVerifier;
import io.pointsman.sandbox.load.LoadWriter;
import io.pointsman.sandbox.load.VerificationReport;
import io.pointsman.sandbox.load.WriteFactory;
import io.pointsman.sandbox.router.Router;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Constant inserts into {@code customer.customer} through the sandbox's router for the length of one
 * case, and the check at its end that every acknowledged insert is there exactly once.
 */
public final class RouterLoad implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RouterLoad.class);
  /** How many acknowledged writes must come before and after a switch, so the load provably spans it. */
  private static final int SPAN = 20;

  private final Router router;
  private final LoadWriter writer;
  private long mark;

  private RouterLoad(Router router, LoadWriter writer) {
    this.router = router;
    this.writer = writer;
  }

  /** Starts writing customer ids from {@code firstId}; each case takes ids of its own. */
  public static RouterLoad start(Router router, long firstId) {
    LoadWriter w = LoadWriter.start(router, LoadOptions.builder()
        .ratePerSecond(30).writers(4).duration(Duration.ofMinutes(5))
        .writes(WriteFactory.customerInserts("customer", firstId)).build());
    RouterLoad load = new RouterLoad(router, w);
    load.awaitMoreAcknowledged();
    return load;
  }

  /** Waits for {@value #SPAN} acknowledged writes beyond those of the last call (or the start). */
  public void awaitMoreAcknowledged() {
    long target = mark + SPAN;
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
        .until(() -> writer.loadLog().acknowledged() >= target);
    mark = writer.loadLog().acknowledged();
  }

  /**
   * Stops the load and checks every acknowledged write was kept exactly once. The check reads the
   * topology through the router's own etcd client, which after an etcd outage reconnects on its own
   * schedule (gRPC backs off) and may still refuse when other clients read again: the read is
   * retried while etcd is UNAVAILABLE to it, and only then judged.
   */
  public VerificationReport stopAndVerify(String what) {
    writer.close();
    LoadVerifier verifier = LoadVerifier.forCustomers(router);
    VerificationReport report = await("the router's topology client reads again").atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptionsMatching(e -> e instanceof PointsmanException p && p.code() == ErrorCode.UNAVAILABLE)
        .until(() -> verifier.verify(writer.loadLog()), r -> r != null);
    log.info("load across {}: {}", what, report.summary());
    assertThat(report.missing()).as("acknowledged writes lost across " + what).isEmpty();
    assertThat(report.duplicated()).as("acknowledged writes duplicated across " + what).isEmpty();
    assertThat(report.lostNothing()).as(report.summary()).isTrue();
    assertThat(report.acknowledged()).isGreaterThanOrEqualTo(2 * SPAN);
    return report;
  }

  @Override
  public void close() {
    writer.close();
  }
}
