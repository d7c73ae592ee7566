package io.pointsman.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.util.JsonFormat;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.workflows.Pointsman;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import vtctldata.Vtctldata;

/**
 * {@code --format json|text} as vtctldclient takes it, and what each format prints. Nothing here
 * talks to Temporal: a wrong format is refused before anything starts.
 */
class OutputFormatTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String MIRRORED = "MirrorTraffic was successful for workflow customer.commerce2customer";

  @Test
  void everyMigrationCommandTakesFormatAndRefusesAnUnknownOneBeforeStartingAnything() {
    for (String group : List.of("MoveTables", "Reshard")) {
      for (String action : List.of("SwitchTraffic", "ReverseTraffic", "Complete", "Cancel", "Show", "Status",
          "Actions")) {
        CliRun run = CliRun.of(group, "--workflow", "wf", "--target-keyspace", "ks", "--format", "yaml", action);
        assertThat(run.exitCode()).as(group + " " + action).isEqualTo(2);
        assertThat(run.err()).as(group + " " + action)
            .contains("invalid value for --format: 'yaml' (supported formats are: text,json)")
            .contains("Nothing was started");
      }
    }
    CliRun mirror = CliRun.of("MoveTables", "--workflow", "wf", "--target-keyspace", "ks", "MirrorTraffic",
        "--format", "yaml");
    assertThat(mirror.exitCode()).isEqualTo(2);
    assertThat(mirror.err()).contains("invalid value for --format: 'yaml'").contains("Nothing was started");
    CliRun validate = CliRun.of("Validate", "--workflow", "wf", "--target-keyspace", "ks", "--format", "xml");
    assertThat(validate.exitCode()).isEqualTo(2);
    assertThat(validate.err()).contains("invalid value for --format: 'xml'");
  }

  @Test
  void formatIsCaseInsensitiveAndMayFollowTheAction() {
    StatusCommand c = CliRun.parse(StatusCommand.class, "MoveTables", "--workflow", "wf", "--target-keyspace", "ks",
        "status", "--format", "JSON");
    assertThat(c.group.outputFormat(c.spec)).isEqualTo(OutputFormat.JSON);
    ShowCommand s = CliRun.parse(ShowCommand.class, "MoveTables", "--workflow", "wf", "--target-keyspace", "ks",
        "show");
    assertThat(s.group.outputFormat(s.spec)).isEqualTo(OutputFormat.TEXT);
    assertThat(s.includeLogs).as("vtctldclient's default").isTrue();
    assertThat(CliRun.parse(ShowCommand.class, "MoveTables", "-w", "wf", "--target-keyspace", "ks", "show",
        "--include-logs=false").includeLogs).isFalse();
    assertThat(CliRun.parse(StatusCommand.class, "MoveTables", "-w", "wf", "--target-keyspace", "ks", "Progress"))
        .as("vtctldclient's alias").isNotNull();
  }

  @Test
  void actionsPrintsTextOnlyAndSaysWhereJsonIs() {
    CliRun run = CliRun.of("MoveTables", "-w", "wf", "--target-keyspace", "ks", "Actions", "--format", "json");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--format json is not supported by Actions")
        .contains("Status --format json prints vtctld's WorkflowStatusResponse");
  }

  @Test
  void actionResultsInJsonHaveTheFieldsOfVtctldsResponses() throws Exception {
    ActionResult r = new ActionResult("SwitchTraffic was successful for workflow customer.wf",
        "Reads Not Switched. Writes Not Switched", "All Reads Switched. Writes Not Switched", List.of());
    assertThat(fieldNames(json(Pointsman.SWITCH_TRAFFIC, r)))
        .containsExactly("summary", "start_state", "current_state", "dry_run_results");
    assertThat(json(Pointsman.SWITCH_TRAFFIC, r).path("current_state").asText())
        .isEqualTo("All Reads Switched. Writes Not Switched");
    assertThat(fieldNames(json(Pointsman.REVERSE_TRAFFIC, r)))
        .containsExactly("summary", "start_state", "current_state", "dry_run_results");
    assertThat(fieldNames(json(Pointsman.COMPLETE_MIGRATION, r))).containsExactly("summary", "dry_run_results");
    assertThat(fieldNames(json(Pointsman.CANCEL_MIGRATION, r))).containsExactly("summary", "details");
    JsonNode dry = json(Pointsman.SWITCH_TRAFFIC, new ActionResult("dry run", "", "", List.of("Lock keyspace commerce")));
    assertThat(dry.path("dry_run_results").get(0).asText()).isEqualTo("Lock keyspace commerce");
  }

  /** vtctldclient's json: WorkflowMirrorTrafficResponse, which has no dry_run_results, even for pointsman's dry run. */
  @Test
  void mirrorTrafficInJsonIsVtctldsWorkflowMirrorTrafficResponse() throws Exception {
    ActionResult done = new ActionResult(MIRRORED, "Reads Not Switched. Writes Not Switched",
        "Reads Not Switched. Writes Not Switched", List.of());
    ActionResult dryRun = new ActionResult("MirrorTraffic dry run results for workflow customer.commerce2customer",
        "Reads Not Switched. Writes Not Switched", "Reads Not Switched. Writes Not Switched",
        List.of("Lock keyspace customer"));

    for (ActionResult r : List.of(done, dryRun)) {
      JsonNode json = json(Pointsman.MIRROR_TRAFFIC, r);
      assertThat(fieldNames(json)).containsExactly("summary", "start_state", "current_state");
      assertThat(json.path("summary").asText()).isEqualTo(r.summary());
      // what vtctldclient prints for the same message: protojson with .proto names and every field
      Vtctldata.WorkflowMirrorTrafficResponse.Builder message = Vtctldata.WorkflowMirrorTrafficResponse.newBuilder();
      JsonFormat.parser().merge(json.toString(), message); // refuses a field the message does not have
      assertThat(json).isEqualTo(JSON.readTree(JsonFormat.printer().preservingProtoFieldNames()
          .alwaysPrintFieldsWithNoPresence().print(message)));
      assertThat(message.getCurrentState()).isEqualTo(r.currentState());
    }
    assertThat(Results.jsonCarriesPlan(Pointsman.MIRROR_TRAFFIC)).as("its dry-run plan goes to stderr").isFalse();
    assertThat(Results.jsonCarriesPlan(Pointsman.SWITCH_TRAFFIC)).isTrue();
  }

  @Test
  void mirrorTrafficInTextIsVtctldclientsSummaryThenBothStates() {
    StringWriter s = new StringWriter();
    Results.print(new PrintWriter(s), new ActionResult(MIRRORED, "Reads Not Switched. Writes Not Switched",
        "Reads Not Switched. Writes Not Switched", List.of()), false, List.of());

    assertThat(s.toString().replace(System.lineSeparator(), "\n")).isEqualTo("\n" + MIRRORED + "\n\n"
        + "Start State: Reads Not Switched. Writes Not Switched\n"
        + "Current State: Reads Not Switched. Writes Not Switched\n");
  }

  @Test
  void statusTextIsVtctldclientsRendering() throws Exception {
    JsonNode status = JSON.readTree("""
        {"table_copy_state": {"customer": {"rows_copied": "5", "rows_total": "10", "rows_percentage": 50,
            "bytes_copied": "16384", "bytes_total": "32768", "bytes_percentage": 50, "phase": "IN_PROGRESS"}},
         "shard_streams": {
           "customer/80-": {"streams": [{"id": 1, "tablet": {"cell": "zone1", "uid": 300}, "source_shard": "commerce/0",
              "position": "", "status": "Copying", "info": "VStream has not started"}]},
           "customer/-80": {"streams": [{"id": 1, "tablet": {"cell": "zone1", "uid": 200}, "source_shard": "commerce/0",
              "position": "MySQL56/x:1-3", "status": "Running", "info": "VStream Lag: 0s"}]}},
         "traffic_state": "Reads Not Switched. Writes Not Switched"}
        """);
    assertThat(StatusCommand.text("customer", "wf", status)).isEqualTo("""
        The following vreplication streams exist for workflow customer.wf:

        id=1 on customer/zone1-200: Status: Running. VStream Lag: 0s.
        id=1 on customer/zone1-300: Status: Copying. VStream has not started.

        Table Copy Status:
        \tcustomer: RowsCopied:5, RowsTotal:10, RowsPercentage:50.00, BytesCopied:16384, BytesTotal:32768, \
        BytesPercentage:50.00, Phase:IN_PROGRESS

        Traffic State: Reads Not Switched. Writes Not Switched""");
  }

  private static JsonNode json(String type, ActionResult r) throws Exception {
    StringWriter s = new StringWriter();
    Results.printJson(new PrintWriter(s), type, r, List.of());
    return JSON.readTree(s.toString());
  }

  private static List<String> fieldNames(JsonNode n) {
    List<String> out = new ArrayList<>();
    n.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
