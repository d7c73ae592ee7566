package io.pointsman.e2e.vitess;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./scripts/demo.sh --vitess} after its build: {@code scripts/vitess-demo.sh} on a real
 * cluster, with pointsman's worker jar in dev mode and its CLI doing every switch. It must end with
 * every write acknowledged through vtgate found again, none failed, and vtctldclient agreeing with
 * pointsman after each action.
 */
class VitessDemoTest {

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void theVitessDemoSwitchesWithPointsmanAndLosesNoWrite() throws Exception {
    VitessBinaries.binary("vttablet"); // fails naming how to build them when missing
    Path repo = VitessCluster.repoRoot();
    Path log = Files.createTempFile(Files.createDirectories(Paths.get("target")), "vitess-demo-", ".log");
    Process p = new ProcessBuilder("bash", repo.resolve("scripts/vitess-demo.sh").toString(), "--rate", "20")
        .directory(repo.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      assertThat(p.waitFor(7, TimeUnit.MINUTES)).as("the demo ended; its output is in " + log).isTrue();
    } finally {
      p.destroy(); // SIGTERM: the script's trap stops the cluster and the worker
      p.waitFor(60, TimeUnit.SECONDS);
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("pointsman on Vitess: demo passed")
        .contains("   vtctldclient status: All Reads Switched. Writes Not Switched")
        .contains("   vtctldclient status: Reads Not Switched. Writes Not Switched")
        .containsPattern("writes acknowledged: [1-9][0-9]*, failed: 0, rows found through vtgate: [1-9]")
        .contains("vtctldclient Workflow list (customer): []");
  }
}
