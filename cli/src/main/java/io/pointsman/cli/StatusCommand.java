package io.pointsman.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.request.ShowRequest;
import io.pointsman.client.TemporalConnection;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code status}: vtctldclient's {@code status} — vtctld's WorkflowStatusResponse as JSON
 * ({@code --format json}) or in vtctldclient's text — and, in text, pointsman's own actions on the
 * workflow after it (what {@code Actions} prints).
 */
@Command(name = "Status", aliases = {"Progress"}, mixinStandardHelpOptions = true, sortOptions = false,
    usageHelpAutoWidth = true,
    description = {"Show the workflow's status as vtctldclient's status does: each stream's state and lag, the "
        + "copy progress of each table while copying, and the Traffic State line. With --format text, the "
        + "pointsman actions run on the workflow follow (see Actions).",
        "Starts no action; the reads run on a pointsman worker as workflow ShowWorkflow."})
final class StatusCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParentCommand
  MigrationGroup group;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws JsonProcessingException {
    OutputFormat format = group.outputFormat(spec);
    ShowRequest request = Requests.status(spec, group);
    PrintWriter out = spec.commandLine().getOut();
    try (TemporalConnection temporal = group.root.connect()) {
      String json = WorkflowReads.read(temporal, request);
      if (format == OutputFormat.JSON) {
        out.println(json);
        out.flush();
        return 0;
      }
      out.println(text(request.targetKeyspace(), request.workflow(), JSON.readTree(json)));
      out.println();
      out.flush();
      return new StatusReport(temporal, out).print(group.groupName(), request.targetKeyspace(), request.workflow());
    }
  }

  /** vtctldclient's text rendering of a WorkflowStatusResponse, shard streams in key order. */
  static String text(String targetKeyspace, String workflow, JsonNode status) {
    StringBuilder sb = new StringBuilder("The following vreplication streams exist for workflow ")
        .append(targetKeyspace).append('.').append(workflow).append(":\n\n");
    List<String> shards = new ArrayList<>();
    status.path("shard_streams").fieldNames().forEachRemaining(shards::add);
    shards.sort(null);
    for (String shard : shards) {
      for (JsonNode s : status.path("shard_streams").path(shard).path("streams")) {
        sb.append("id=").append(s.path("id").asLong()).append(" on ").append(targetKeyspace).append('/')
            .append(s.path("tablet").path("cell").asText()).append('-').append(s.path("tablet").path("uid").asLong())
            .append(": Status: ").append(s.path("status").asText()).append(". ").append(s.path("info").asText())
            .append(".\n");
      }
    }
    JsonNode copy = status.path("table_copy_state");
    if (copy.size() > 0) {
      List<String> tables = new ArrayList<>();
      copy.fieldNames().forEachRemaining(tables::add);
      tables.sort(null);
      sb.append("\nTable Copy Status:");
      for (String t : tables) {
        JsonNode c = copy.path(t);
        sb.append("\n\t").append(t).append(": ")
            .append(String.format(Locale.ROOT, "RowsCopied:%d, RowsTotal:%d, RowsPercentage:%.2f, BytesCopied:%d, "
                    + "BytesTotal:%d, BytesPercentage:%.2f", c.path("rows_copied").asLong(), c.path("rows_total").asLong(),
                c.path("rows_percentage").asDouble(), c.path("bytes_copied").asLong(), c.path("bytes_total").asLong(),
                c.path("bytes_percentage").asDouble()));
        String phase = c.path("phase").asText("UNKNOWN");
        if (!phase.equals("UNKNOWN")) {
          sb.append(", Phase:").append(phase);
        }
      }
      sb.append('\n');
    }
    return sb.append("\nTraffic State: ").append(status.path("traffic_state").asText()).toString();
  }
}
