package io.pointsman.api.request;

import static io.pointsman.api.model.TabletType.PRIMARY;
import static io.pointsman.api.model.TabletType.RDONLY;
import static io.pointsman.api.model.TabletType.REPLICA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MirrorTraffic's input decoded the way Temporal's JSON converter decodes it (plain Jackson), with
 * vtctldclient's {@code MoveTables mirrortraffic} defaults: every tablet type, 1 percent.
 */
class MirrorTrafficRequestTest {
  private static final ObjectMapper JACKSON = new ObjectMapper();
  private static final String REQUIRED = "\"workflow\":\"commerce2customer\",\"targetKeyspace\":\"customer\"";

  private static MirrorTrafficRequest decode(String json) throws Exception {
    return JACKSON.readValue(json, MirrorTrafficRequest.class);
  }

  /** The required fields and {@code extra} (JSON members, or empty). */
  private static String with(String extra) {
    return "{" + REQUIRED + (extra.isEmpty() ? "" : "," + extra) + "}";
  }

  private static String problem(String json) {
    return DecodeProblems.required(json, MirrorTrafficRequest.class);
  }

  @Test
  void onlyWorkflowAndTargetKeyspaceAreRequiredAndDefaultsFollowVtctldclient() throws Exception {
    MirrorTrafficRequest r = decode(with(""));
    assertThat(r.workflow()).isEqualTo("commerce2customer");
    assertThat(r.targetKeyspace()).isEqualTo("customer");
    assertThat(r.tabletTypes()).containsExactly(PRIMARY, REPLICA, RDONLY);
    assertThat(r.percent()).isEqualTo(1.0f);
    assertThat(r.dryRun()).isFalse();
    assertThat(r.lockTtl()).isEqualTo(Duration.ofMinutes(2));
    assertThat(r.maxLockHold()).isEqualTo(Duration.ofMinutes(10));
    assertThat(MirrorTrafficRequest.of("commerce2customer", "customer")).isEqualTo(r);
  }

  @Test
  void anEmptyListOrStringOfTabletTypesMeansEveryType() throws Exception {
    assertThat(decode(with("\"tabletTypes\":[]")).tabletTypes()).containsExactly(PRIMARY, REPLICA, RDONLY);
    assertThat(decode(with("\"tabletTypes\":\"\"")).tabletTypes()).containsExactly(PRIMARY, REPLICA, RDONLY);
    assertThat(decode(with("\"tabletTypes\":null,\"percent\":null")))
        .as("null as absent").isEqualTo(MirrorTrafficRequest.of("commerce2customer", "customer"));
  }

  @Test
  void everyFieldIsRead() throws Exception {
    MirrorTrafficRequest r = decode(with("\"tabletTypes\":[\"rdonly\",\"replica\"],\"percent\":5.5,"
        + "\"dryRun\":true,\"lockTtl\":\"45s\",\"maxLockHold\":\"PT20M\""));
    assertThat(r.tabletTypes()).as("in the order given").containsExactly(RDONLY, REPLICA);
    assertThat(r.percent()).isEqualTo(5.5f);
    assertThat(r.dryRun()).isTrue();
    assertThat(r.lockTtl()).isEqualTo(Duration.ofSeconds(45));
    assertThat(r.maxLockHold()).isEqualTo(Duration.ofMinutes(20));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "[\"MASTER\"]|PRIMARY",
      "[\"batch\"]|RDONLY",
      "[\" Replica \"]|REPLICA",
      "\"replica,master\"|REPLICA,PRIMARY",
      "\"rdonly, primary ,\"|RDONLY,PRIMARY",
      "[\"replica\",\"REPLICA\",\"primary\"]|REPLICA,PRIMARY",
      "\"batch,rdonly\"|RDONLY",
  })
  void tabletTypesByNameOrAliasAsAListOrOneCommaSeparatedStringOnceEach(String types, String expected)
      throws Exception {
    List<String> decoded = decode(with("\"tabletTypes\":" + types)).tabletTypes().stream().map(Enum::name).toList();
    assertThat(decoded).containsExactly(expected.split(","));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"0", "0.0", "100", "100.0", "0.05", "1e2", "50"})
  void aPercentFromZeroToOneHundredIsAccepted(String percent) throws Exception {
    assertThat(decode(with("\"percent\":" + percent)).percent()).isEqualTo(Float.parseFloat(percent));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "\"percent\":-1|field 'percent' must be from 0 to 100",
      "\"percent\":101|field 'percent' must be from 0 to 100",
      "\"percent\":100.001|field 'percent' must be from 0 to 100",
      "\"percent\":-0.0001|field 'percent' must be from 0 to 100",
      "\"percent\":1e400|field 'percent' must be from 0 to 100",
      "\"percent\":-1e400|field 'percent' must be from 0 to 100",
      "\"percent\":\"5\"|field 'percent' must be a number, got \"5\"",
      "\"percent\":\"NaN\"|field 'percent' must be a number",
      "\"percent\":true|field 'percent' must be a number",
      "\"percent\":[5]|field 'percent' must be a number",
      "\"percent\":{}|field 'percent' must be a number",
      "\"tabletTypes\":[\"SPARE\"]|field 'tabletTypes' 'SPARE' is not one of PRIMARY, REPLICA, RDONLY",
      "\"tabletTypes\":\"replica,unknown\"|field 'tabletTypes' 'unknown' is not one of PRIMARY, REPLICA, RDONLY",
      "\"tabletTypes\":[\"replica\",7]|field 'tabletTypes' must be a list of strings",
      "\"tabletTypes\":7|field 'tabletTypes' must be a list of strings",
      "\"dryRun\":\"yes\"|field 'dryRun' must be true or false",
      "\"lockTtl\":\"1s\"|field 'lockTtl' must be at least 2s",
      "\"cells\":\"zone1\"|MirrorTraffic input has unknown field cells",
      "\"percentage\":5|MirrorTraffic input has unknown field percentage",
  })
  void badInputIsRefusedNamingTheField(String member, String expected) {
    assertThat(problem(with(member))).contains(expected);
  }

  @Test
  void theUnknownFieldIsNamedWithTheKnownOnes() {
    assertThat(problem("{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"percnt\":5}"))
        .isEqualTo("MirrorTraffic input has unknown field percnt; known fields are workflow, targetKeyspace,"
            + " tabletTypes, percent, dryRun, lockTtl, maxLockHold");
    assertThat(problem("{\"targetKeyspace\":\"customer\",\"percent\":5}"))
        .isEqualTo("MirrorTraffic input field 'workflow' is required");
  }

  /** NaN cannot be written in strict JSON; a parser that allows it, or a tree built in Java, must still not pass it. */
  @Test
  void aPercentThatIsNotANumberIsRefusedNamingTheField() throws Exception {
    ObjectNode tree = (ObjectNode) JACKSON.readTree(with(""));
    tree.set("percent", DoubleNode.valueOf(Double.NaN));
    assertThatThrownBy(() -> MirrorTrafficRequest.fromJson(tree)).isInstanceOf(InvalidRequestException.class)
        .hasMessage("MirrorTraffic input field 'percent' must be from 0 to 100 (0 removes the mirror rules), got NaN");

    ObjectMapper lenient = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    for (String value : List.of("NaN", "Infinity", "-Infinity")) {
      assertThatThrownBy(() -> lenient.readValue(with("\"percent\":" + value), MirrorTrafficRequest.class))
          .as(value).isInstanceOf(ValueInstantiationException.class)
          .cause().isInstanceOf(InvalidRequestException.class).hasMessageContaining("field 'percent'");
    }
  }

  @Test
  void theJavaSideCopiesAreValidatedLikeAnyInput() {
    MirrorTrafficRequest r = MirrorTrafficRequest.of("wf", "customer");
    assertThat(r.withPercent(0).percent()).isZero();
    assertThat(r.withPercent(100).percent()).isEqualTo(100f);
    assertThatThrownBy(() -> r.withPercent(-1)).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("field 'percent'");
    assertThatThrownBy(() -> r.withPercent(Float.NaN)).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("field 'percent'");
    assertThatThrownBy(() -> r.withTabletTypes(List.of(io.pointsman.api.model.TabletType.SPARE)))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("field 'tabletTypes'");
    assertThat(r.withTabletTypes(List.of()).tabletTypes()).containsExactly(PRIMARY, REPLICA, RDONLY);
  }

  @Test
  void aRequestSurvivesTheRoundTripThroughJson() throws Exception {
    for (MirrorTrafficRequest r : List.of(MirrorTrafficRequest.of("wf", "customer"),
        MirrorTrafficRequest.of("commerce2customer", "customer").withTabletTypes(List.of(REPLICA, PRIMARY))
            .withPercent(0.1f).withDryRun(true),
        MirrorTrafficRequest.of("wf", "customer").withPercent(0).withTabletTypes(List.of(RDONLY)),
        MirrorTrafficRequest.of("wf", "customer").withPercent(100))) {
      String json = JACKSON.writeValueAsString(r);
      assertThat(decode(json)).as(json).isEqualTo(r);
      assertThat(MirrorTrafficRequest.fromJson(JACKSON.valueToTree(r.toJson()))).as(json).isEqualTo(r);
    }
    String json = JACKSON.writeValueAsString(MirrorTrafficRequest.of("wf", "customer")
        .withTabletTypes(List.of(REPLICA)).withPercent(5));
    assertThat(json).contains("\"tabletTypes\":[\"REPLICA\"]").contains("\"percent\":5.0")
        .contains("\"dryRun\":false").contains("\"lockTtl\":\"2m0s\"");
  }

  /** What a worker reports, and the Temporal UI shows first: the sentence alone. */
  @Test
  void theWorkersConverterFailsWithThePlainSentence() {
    DataConverter converter = PlainInputConverter.dataConverter();
    Payload bad = Payload.newBuilder().putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFromUtf8(with("\"percent\":\"5\""))).build();
    assertThatThrownBy(() -> converter.fromPayload(bad, MirrorTrafficRequest.class, MirrorTrafficRequest.class))
        .isInstanceOf(DataConverterException.class)
        .hasMessage("MirrorTraffic input field 'percent' must be a number, got \"5\"");
    Payload good = bad.toBuilder().setData(ByteString.copyFromUtf8(with("\"percent\":0"))).build();
    assertThat(converter.fromPayload(good, MirrorTrafficRequest.class, MirrorTrafficRequest.class).percent())
        .isZero();
  }
}
