package io.pointsman.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The command line of {@code pointsman-worker.jar validate}; the validator itself runs on the sandbox. */
class ValidateMainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    return ValidateMain.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void theWorkflowAndTargetKeyspaceAreRequired() {
    assertThat(run(Map.of(), "--workflow", "commerce2customer")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--workflow and --target-keyspace are required");
  }

  @Test
  void anUnknownArgumentIsAUsageError() {
    assertThat(run(Map.of(), "--force")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown argument '--force'");
  }

  @Test
  void aMissingSettingIsNamedBeforeAnythingIsRead() {
    assertThat(run(Map.of(), "--workflow", "commerce2customer", "--target-keyspace", "customer")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("MYSQL_USER");
  }

  @Test
  void helpIsExitZero() {
    assertThat(run(Map.of(), "--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("validate --workflow W --target-keyspace K");
  }
}
