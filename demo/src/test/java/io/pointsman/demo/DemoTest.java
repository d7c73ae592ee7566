package io.pointsman.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** README's first command, run to the end: the same code path as scripts/demo.sh, with a lighter load. */
@Timeout(600)
class DemoTest {

  @Test
  void theDemoSwitchesBackAndForthUnderLoadLosesNoWriteAndLeavesNothingRunning() {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new Tee(printed, System.out), true, StandardCharsets.UTF_8);

    DemoReport report = Demo.run(DemoOptions.builder().loadRate(20).settle(Duration.ofSeconds(1)).out(out).build());
    String text = printed.toString(StandardCharsets.UTF_8);

    assertThat(report.actions()).extracting(DemoReport.ActionTiming::command).containsExactly(
        "SwitchTraffic --tablet-types REPLICA,RDONLY", "SwitchTraffic --tablet-types PRIMARY", "ReverseTraffic",
        "SwitchTraffic", "Complete");
    assertThat(report.actions()).allMatch(a -> a.exitCode() == 0);
    assertThat(report.load().acknowledged()).isPositive();
    assertThat(report.load().errors()).as(report.load().summary()).isEmpty();
    assertThat(report.load().lostNothing()).as(report.load().summary()).isTrue();
    assertThat(report.writeCutovers()).as("writes switched by SwitchTraffic, ReverseTraffic, SwitchTraffic")
        .isEqualTo(3);
    assertThat(report.succeeded()).isTrue();

    // the steps showed live, and the summary says what the issue asks for
    assertThat(text).contains("$ pointsman MoveTables --workflow commerce2customer --target-keyspace customer "
            + "SwitchTraffic --tablet-types REPLICA,RDONLY")
        .contains("done    stopSourceWrites").contains("done    changeRouting")
        .contains("SwitchTraffic was successful for workflow customer.commerce2customer")
        .contains("ReverseTraffic was successful for workflow customer.commerce2customer")
        .contains("Current State: All Reads Switched. Writes Switched")
        .contains("Successfully completed the commerce2customer workflow in the customer keyspace")
        .contains("$ pointsman Validate --workflow commerce2customer --target-keyspace customer")
        .contains("customer.commerce2customer: NO_WORKFLOW").contains("no broken invariant")
        .contains("== Summary")
        .contains("What moved:  tables customer, corder: keyspace commerce (unsharded) -> keyspace customer")
        .contains("Longest write gap seen by the load: ")
        .contains("Acknowledged writes lost: 0 (each of the " + report.load().acknowledged())
        .contains("Demo OK");

    // nothing of it is left: no data folder, no server on any of its ports
    assertThat(Files.exists(report.footprint().dataDir())).isFalse();
    assertThat(report.footprint().ports()).hasSize(5).allMatch(port -> !listening(port));
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Keeps what the demo printed for the assertions and shows it in the test's output file too. */
  private static final class Tee extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    Tee(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }

    @Override
    public void flush() throws IOException {
      a.flush();
      b.flush();
    }
  }
}
