package io.pointsman.engine.vtorc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Asks one VTOrc, over its HTTP API, what it sees wrong on a shard. Vitess 24's VTOrc serves
 * {@code /api/detection-analysis?keyspace=..&shard=..}: a JSON array (or {@code null} when empty) of
 * the shard's analyses whose {@code Analysis} is a problem it would recover from (a dead or
 * unreachable primary, replicas not replicating, ...), the same analysis its recoveries act on.
 * Entries whose {@code Analysis} is {@code NoProblem} carry only structure warnings and are ignored.
 */
public final class VtorcClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NO_PROBLEM = "NoProblem";

  private final String address;
  private final HttpClient http;
  private final Duration timeout;

  /** @param address {@code host:port} of VTOrc's HTTP port */
  public VtorcClient(String address, HttpClient http, Duration timeout) {
    this.address = Objects.requireNonNull(address, "address");
    this.http = Objects.requireNonNull(http, "http");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  public String address() {
    return address;
  }

  /**
   * The problems VTOrc reports on one shard.
   *
   * @throws IOException when VTOrc does not answer, answers with an error status or with something
   *     that is not its analysis JSON
   */
  public List<VtorcProblem> problems(String keyspace, String shard) throws IOException, InterruptedException {
    URI uri = URI.create("http://" + address + "/api/detection-analysis?keyspace="
        + URLEncoder.encode(keyspace, StandardCharsets.UTF_8) + "&shard=" + URLEncoder.encode(shard,
        StandardCharsets.UTF_8));
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(timeout).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(uri + " answered HTTP " + response.statusCode() + ": " + clip(response.body()));
    }
    JsonNode body;
    try {
      body = JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IOException(uri + " answered something that is not JSON: " + clip(response.body()), e);
    }
    List<VtorcProblem> out = new ArrayList<>();
    if (body == null || body.isNull() || body.isMissingNode()) {
      return out; // Go encodes an empty analysis as null
    }
    if (!body.isArray()) {
      throw new IOException(uri + " answered " + clip(response.body()) + ", not a JSON array of analyses");
    }
    for (JsonNode a : body) {
      String analysis = a.path("Analysis").asText("");
      if (analysis.isEmpty() || analysis.equals(NO_PROBLEM)) {
        continue;
      }
      // a filter VTOrc ignored (an older VTOrc) must not blame this shard for another's problem
      String ks = a.path("AnalyzedKeyspace").asText(keyspace);
      String sh = a.path("AnalyzedShard").asText(shard);
      if (!ks.equals(keyspace) || !sh.equals(shard)) {
        continue;
      }
      out.add(new VtorcProblem(address, ks, sh, analysis, alias(a.path("AnalyzedInstanceAlias")),
          a.path("Description").asText("")));
    }
    return out;
  }

  /** VTOrc writes the alias as {@code zone1-0000000100}; tolerate the proto's object form too. */
  private static String alias(JsonNode n) {
    if (n.isTextual()) {
      return n.asText();
    }
    if (n.isObject()) {
      return n.path("cell").asText("") + "-" + String.format("%010d", n.path("uid").asLong());
    }
    return "";
  }

  private static String clip(String s) {
    String one = s == null ? "" : s.strip().replaceAll("\\s+", " ");
    return one.length() > 300 ? one.substring(0, 300) + "…" : one;
  }
}
