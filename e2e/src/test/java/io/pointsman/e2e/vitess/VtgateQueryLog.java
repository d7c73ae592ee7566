package io.pointsman.e2e.vitess;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * vtgate's query log of a cluster (one JSON object a line, see scripts/vitess-cluster.sh): vtgate
 * logs there only the queries that carry the cluster's tag, and a query it mirrored says there how
 * the mirror target answered ({@code MirrorTargetError}, {@code MirrorTargetExecuteTime}), which
 * vtgate reports nowhere else per query.
 */
final class VtgateQueryLog {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private final String tag;

  private VtgateQueryLog(Path file, String tag) {
    this.file = file;
    this.tag = tag;
  }

  static VtgateQueryLog of(VitessCluster cluster) {
    return new VtgateQueryLog(Paths.get(cluster.env("VITESS_CLUSTER_DIR")).resolve("vtgate-queries.log"),
        cluster.env("POINTSMAN_VTGATE_QUERYLOG_TAG"));
  }

  /** A comment that makes vtgate log the query it is in, and names it by {@code name}. */
  String probe(String name) {
    return "/* " + tag + " " + name + " */";
  }

  /** vtgate's entries, in order, for the queries whose text contains {@link #probe(String) probe(name)}. */
  List<JsonNode> entries(String name) {
    String marker = probe(name);
    List<JsonNode> found = new ArrayList<>();
    if (!Files.exists(file)) {
      return found; // vtgate opens it on its first logged query
    }
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (line.contains(tag)) {
          JsonNode entry = JSON.readTree(line);
          if (entry.path("SQL").asText().contains(marker)) {
            found.add(entry);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file, e);
    }
    return found;
  }
}
