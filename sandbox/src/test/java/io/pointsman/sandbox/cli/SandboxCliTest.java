package io.pointsman.sandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.sandbox.cluster.SandboxFolderTest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The CLI as an operator uses it: each command is a separate invocation that finds the sandbox
 * through its data folder, and {@code down} stops what {@code up} left running.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SandboxCliTest extends SandboxFolderTest {
  @Test
  void upStatusCreateAndDownWorkAcrossInvocations() {
    int etcdPort = LoopbackPorts.freePort();
    Result up = run("up", "--data-dir", dataDir.toString(), "--base-port", "0",
        "--etcd-port", Integer.toString(etcdPort), "--etcd-peer-port", "0", "--without-reshard-targets");
    assertThat(up.code).as(up.err).isZero();
    assertThat(up.out).contains("etcd: http://127.0.0.1:" + etcdPort, "zone1-0000000100 commerce/0 on 127.0.0.1:");
    assertThat(LoopbackPorts.isListening(etcdPort)).as("up leaves etcd running").isTrue();

    Result created = run("create-movetables", "--data-dir", dataDir.toString());
    assertThat(created.code).as(created.err).isZero();
    assertThat(created.out).contains("created MOVE_TABLES workflow customer.commerce2customer with 2 streams");

    Result status = run("status", "--data-dir", dataDir.toString());
    assertThat(status.code).as(status.err).isZero();
    assertThat(status.out)
        .contains("commerce/0 primary zone1-0000000100 serving denied []")
        .contains("customer/-80 primary zone1-0000000300 serving denied [customer, corder]")
        .contains("stream 1 commerce2customer from commerce/0: Init")
        .contains("routing rules: 18");

    Result reshard = run("create-reshard", "--data-dir", dataDir.toString());
    assertThat(reshard.code).isEqualTo(1);
    assertThat(reshard.err).contains("error: shard customer/-40 does not exist");

    Result down = run("down", "--data-dir", dataDir.toString(), "--grace", "20s");
    assertThat(down.code).as(down.err).isZero();
    assertThat(down.out).contains("etcd (pid").contains("zone1-0000000400 (pid");
    assertThat(down.out.lines().filter(l -> l.endsWith(": STOPPED"))).hasSize(4);
    assertThat(LoopbackPorts.isListening(etcdPort)).isFalse();

    Result again = run("status", "--data-dir", dataDir.toString());
    assertThat(again.code).isEqualTo(1);
    assertThat(again.err).contains("no sandbox state");
  }

  private record Result(int code, String out, String err) {}

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = SandboxCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new Result(code, out.toString(), err.toString());
  }
}
