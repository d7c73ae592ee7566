package io.pointsman.workflows.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The replay corpus is committed, and recorded from real runs: no history in it may carry a
 * password, key or credential, neither as a field nor inside a payload. The controls show the
 * check finds one where it would hide: inside a base64 payload, a nested result, a failure text.
 */
class CorpusHoldsNoSecretTest {

  @Test
  void noRecordedHistoryHoldsASecretLookingField() throws Exception {
    List<String> found = new ArrayList<>();
    int files = 0;
    try (Stream<Path> all = Files.list(HistoryReplayTest.dir())) {
      for (Path file : all.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        files++;
        for (String f : SecretLookingFields.in(Files.readString(file, StandardCharsets.UTF_8))) {
          found.add(file.getFileName() + " " + f);
        }
      }
    }
    assertThat(files).as("histories searched").isGreaterThanOrEqualTo(8);
    assertThat(found).as("secret-looking fields in the replay corpus").isEmpty();
  }

  @Test
  void aPasswordInsideAnActivityPayloadIsFound() {
    String history = history(payload("{\"keyspace\":\"customer\",\"mysql\":{\"user\":\"pointsman\",\"password\":\"x\"}}"));
    assertThat(SecretLookingFields.in(history)).singleElement().asString()
        .contains("input.payloads[0].data(decoded).mysql.password", "named like a secret");
  }

  @Test
  void anApiKeyFieldOutsideAPayloadIsFound() {
    String history = "{\"events\":[{\"eventId\":\"1\",\"header\":{\"fields\":{\"temporal-api-key\":{}}}}]}";
    assertThat(SecretLookingFields.in(history)).singleElement().asString().contains("temporal-api-key");
  }

  @Test
  void secretsCarriedInValuesAreFound() {
    assertThat(SecretLookingFields.in(history(payload("\"jdbc:mysql://h/db?user=p&password=hunter2\"")))).hasSize(1);
    assertThat(SecretLookingFields.in(history(payload("\"http://pointsman:hunter2@etcd:2379\"")))).hasSize(1);
    assertThat(SecretLookingFields.in(history(payload("\"-----BEGIN PRIVATE KEY-----\\nMIIE\"")))).hasSize(1);
    assertThat(SecretLookingFields.in(history(payload("\"authorization: Bearer abcdefgh12345678\"")))).hasSize(1);
  }

  @Test
  void whatMerelyMentionsAuthenticationIsNotASecret() {
    // a lock's fencing token and MySQL's access-denied text (it names no password) are fine
    String history = history(payload("{\"token\":42,\"holder\":\"pointsman\",\"message\":\"Access denied for user "
        + "'pointsman'@'localhost' (using password: YES); etcd refused the user name or password (ETCD_USER, "
        + "ETCD_PASSWORD)\"}"));
    assertThat(SecretLookingFields.in(history)).isEmpty();
  }

  /** A one-event history as Temporal's JSON export writes it, the input payload base64. */
  private static String history(String payloadJson) {
    return "{\"events\":[{\"eventId\":\"1\",\"eventType\":\"EVENT_TYPE_WORKFLOW_EXECUTION_STARTED\","
        + "\"workflowExecutionStartedEventAttributes\":{\"input\":{\"payloads\":[" + payloadJson + "]}}}]}";
  }

  private static String payload(String json) {
    Base64.Encoder b64 = Base64.getEncoder();
    return "{\"metadata\":{\"encoding\":\"" + b64.encodeToString("json/plain".getBytes(StandardCharsets.UTF_8))
        + "\"},\"data\":\"" + b64.encodeToString(json.getBytes(StandardCharsets.UTF_8)) + "\"}";
  }
}
