package io.pointsman.engine.vtorc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The VTOrc question on its wire format, against a loopback HTTP server answering as VTOrc 24's
 * {@code /api/detection-analysis} does (VtorcRefusalTest asks a real VTOrc).
 */
class FailoverToolCheckTest {
  private HttpServer server;
  private final Map<String, String> answers = new ConcurrentHashMap<>();
  private String address;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/api/detection-analysis", ex -> {
      String body = answers.getOrDefault(ex.getRequestURI().getRawQuery(), "null");
      int status = body.startsWith("HTTP ") ? Integer.parseInt(body.substring(5)) : 200;
      byte[] bytes = (status == 200 ? body : "boom").getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(status, bytes.length);
      ex.getResponseBody().write(bytes);
      ex.close();
    });
    server.start();
    address = "127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void noAnalysisOrOnlyStructureWarningsLetTheWindowOpen() {
    answers.put("keyspace=customer&shard=-80", "[{\"AnalyzedKeyspace\":\"customer\",\"AnalyzedShard\":\"-80\","
        + "\"Analysis\":\"NoProblem\",\"StructureAnalysis\":[\"NoFailoverSupportStructureWarning\"]}]");

    assertThat(FailoverToolCheck.of(List.of(address)).refusal(List.of("commerce/0", "customer/-80"))).isEmpty();
    assertThat(FailoverToolCheck.of(List.of()).refusal(List.of("commerce/0"))).isEmpty();
  }

  @Test
  void aProblemIsNamedWithTheVtorcTheShardTheTabletAndVtorcsWords() {
    answers.put("keyspace=commerce&shard=0", "[{\"AnalyzedInstanceAlias\":\"zone1-0000000100\","
        + "\"AnalyzedKeyspace\":\"commerce\",\"AnalyzedShard\":\"0\",\"Analysis\":\"DeadPrimary\","
        + "\"Description\":\"Primary cannot be reached by vtorc and none of its replicas is replicating\"}]");

    assertThat(FailoverToolCheck.of(List.of(address)).refusal(List.of("commerce/0", "customer/-80")))
        .isEqualTo("VTOrc " + address + " reports DeadPrimary on commerce/0 (tablet zone1-0000000100): Primary"
            + " cannot be reached by vtorc and none of its replicas is replicating");
  }

  @Test
  void aVtorcThatFailsOrIsNotThereRefusesTheWindow() {
    answers.put("keyspace=commerce&shard=0", "HTTP 500");
    assertThat(FailoverToolCheck.of(List.of(address)).refusal(List.of("commerce/0")))
        .startsWith("VTOrc " + address + " did not answer about commerce/0 (").contains("HTTP 500");

    server.stop(0);
    assertThat(new FailoverToolCheck(() -> List.of(address), Duration.ofSeconds(2)).refusal(List.of("commerce/0")))
        .startsWith("VTOrc " + address + " did not answer about commerce/0")
        .endsWith("pointsman cannot tell whether it is recovering that shard");
  }

  @Test
  void addressesMustBeHostAndPort() {
    assertThat(FailoverToolCheck.parseAddresses(" vtorc-1:16000,,vtorc-2:16001 ")).containsExactly("vtorc-1:16000",
        "vtorc-2:16001");
    assertThat(FailoverToolCheck.parseAddresses(null)).isEmpty();
    for (String bad : List.of("vtorc", "http://vtorc:16000", "vtorc:", "vtorc:99999", ":16000")) {
      assertThatThrownBy(() -> FailoverToolCheck.parseAddresses(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not host:port");
    }
  }
}
