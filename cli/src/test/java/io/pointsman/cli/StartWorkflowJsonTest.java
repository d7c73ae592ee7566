package io.pointsman.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.request.SwitchTrafficRequest;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docker/start-workflow.json, the input users paste into the Temporal UI's Start Workflow form, is
 * what the workflow decodes, and the same request the CLI sends with its defaults.
 */
class StartWorkflowJsonTest {
  @Test
  void theUiInputDecodesToTheRequestTheCliSendsByDefault() throws IOException {
    SwitchTrafficRequest fromUi = SwitchTrafficRequest.fromJson(
        new ObjectMapper().readTree(Path.of("..", "docker", "start-workflow.json").toFile()));
    SwitchTrafficRequest fromCli = (SwitchTrafficRequest) CliRun.parse(SwitchTrafficCommand.class, "MoveTables",
        "--workflow", "commerce2customer", "--target-keyspace", "customer", "SwitchTraffic").request();

    assertThat(fromUi).isEqualTo(fromCli).isEqualTo(SwitchTrafficRequest.of("commerce2customer", "customer"));
  }
}
