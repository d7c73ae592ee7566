package io.pointsman.api.request;

import static io.pointsman.api.model.TabletType.PRIMARY;
import static io.pointsman.api.model.TabletType.RDONLY;
import static io.pointsman.api.model.TabletType.REPLICA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Requests decoded the way Temporal's JSON converter decodes them (plain Jackson). */
class RequestDecodingTest {
  private static final ObjectMapper JACKSON = new ObjectMapper();

  private static SwitchTrafficRequest decode(String json) throws Exception {
    return JACKSON.readValue(json, SwitchTrafficRequest.class);
  }

  private static String problem(String json, Class<?> type) {
    return DecodeProblems.required(json, type);
  }

  @Test
  void onlyWorkflowAndTargetKeyspaceAreRequiredAndDefaultsFollowVtctldclient() throws Exception {
    SwitchTrafficRequest r = decode("{\"workflow\":\"commerce2customer\",\"targetKeyspace\":\"customer\"}");
    assertThat(r.tabletTypes()).containsExactly(REPLICA, RDONLY, PRIMARY);
    assertThat(r.cells()).isEmpty();
    assertThat(r.timeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(r.maxReplicationLagAllowed()).isEqualTo(Duration.ofSeconds(30));
    assertThat(r.enableReverseReplication()).isTrue();
    assertThat(r.dryRun()).isFalse();
    assertThat(r.lockTtl()).isEqualTo(Duration.ofMinutes(2));
    assertThat(r.maxLockHold()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void everyFieldIsRead() throws Exception {
    SwitchTrafficRequest r = decode("{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"tabletTypes\":[\"primary\","
        + "\"replica\"],\"cells\":\"zone1,zone2\",\"timeout\":\"1m30s\",\"maxReplicationLagAllowed\":\"5s\","
        + "\"enableReverseReplication\":false,\"dryRun\":true,\"lockTtl\":\"45s\",\"maxLockHold\":\"PT20M\"}");
    assertThat(r.tabletTypes()).containsExactly(PRIMARY, REPLICA);
    assertThat(r.cells()).containsExactly("zone1", "zone2");
    assertThat(r.timeout()).isEqualTo(Duration.ofSeconds(90));
    assertThat(r.maxReplicationLagAllowed()).isEqualTo(Duration.ofSeconds(5));
    assertThat(r.enableReverseReplication()).isFalse();
    assertThat(r.dryRun()).isTrue();
    assertThat(r.lockTtl()).isEqualTo(Duration.ofSeconds(45));
    assertThat(r.maxLockHold()).isEqualTo(Duration.ofMinutes(20));
    assertThat(r.readTabletTypes()).containsExactly(REPLICA);
  }

  @Test
  void aRequestSurvivesTheRoundTripThroughJson() throws Exception {
    SwitchTrafficRequest r = SwitchTrafficRequest.of("wf", "customer").withTimeout(Duration.ofSeconds(45))
        .withTabletTypes(List.of(PRIMARY)).withDryRun(true).withLockTtl(Duration.ofSeconds(30));
    String json = JACKSON.writeValueAsString(r);
    assertThat(json).contains("\"timeout\":\"45s\"");
    assertThat(json).contains("\"tabletTypes\":[\"PRIMARY\"]");
    assertThat(decode(json)).isEqualTo(r);
    CompleteRequest c = CompleteRequest.of("wf", "customer").with(true, false, true, false);
    assertThat(JACKSON.readValue(JACKSON.writeValueAsString(c), CompleteRequest.class)).isEqualTo(c);
    assertThat(JACKSON.writeValueAsString(c)).doesNotContain("journalGrace"); // as recorded before the field
    CompleteRequest held = c.withJournalGrace(Duration.ofMinutes(5));
    assertThat(JACKSON.writeValueAsString(held)).contains("\"journalGrace\":\"5m0s\"");
    assertThat(JACKSON.readValue(JACKSON.writeValueAsString(held), CompleteRequest.class)).isEqualTo(held);
    CancelRequest x = CancelRequest.of("wf", "customer").with(false, true, true);
    assertThat(JACKSON.readValue(JACKSON.writeValueAsString(x), CancelRequest.class)).isEqualTo(x);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"timout\":\"30s\"}|unknown field timout",
      "{\"targetKeyspace\":\"customer\"}|field 'workflow' is required",
      "{\"workflow\":\"wf\"}|field 'targetKeyspace' is required",
      "{\"workflow\":7,\"targetKeyspace\":\"customer\"}|field 'workflow' must be a string",
      "{\"workflow\":\"wf\",\"targetKeyspace\":\"a/b\"}|field 'targetKeyspace'",
      "{\"workflow\":\"w`f\",\"targetKeyspace\":\"customer\"}|field 'workflow'",
      "{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"timeout\":\"30x\"}|field 'timeout' '30x' is not a duration",
      "{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"timeout\":30}|field 'timeout' must be a duration string",
      "{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"timeout\":\"500ms\"}|field 'timeout' must be at least 1s",
      "{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"tabletTypes\":[\"PRIMARY\",\"SPARE\"]}|field 'tabletTypes'",
      "{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"dryRun\":\"yes\"}|field 'dryRun' must be true or false",
      "{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"cells\":{}}|field 'cells' must be a list of strings",
      "{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"lockTtl\":\"1s\"}|field 'lockTtl' must be at least 2s",
      "{\"workflow\":\"wf\",\"targetKeyspace\":\"customer\",\"lockTtl\":\"5m\",\"maxLockHold\":\"4m\"}|field 'maxLockHold'",
      "[1,2]|input must be one JSON object",
  })
  void badInputIsRefusedNamingTheField(String json, String expected) {
    assertThat(problem(json, SwitchTrafficRequest.class)).contains(expected);
  }

  @Test
  void aMisspelledRequiredFieldIsNamedWithTheKnownOnesNotReportedAsMissing() {
    assertThat(problem("{\"workflow\":\"wf\",\"targetKeyspce\":\"customer\"}", SwitchTrafficRequest.class))
        .isEqualTo("SwitchTraffic input has unknown field targetKeyspce (and lacks the required targetKeyspace);"
            + " known fields are workflow, targetKeyspace, tabletTypes, cells, timeout, maxReplicationLagAllowed,"
            + " enableReverseReplication, dryRun, lockTtl, maxLockHold, shards, force, initializeTargetSequences");
  }

  /** What a worker reports, and the Temporal UI shows first: the sentence alone, no Jackson class or location. */
  @Test
  void theWorkersConverterFailsWithThePlainSentence() {
    DataConverter converter = PlainInputConverter.dataConverter();
    Payload typo = Payload.newBuilder().putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFromUtf8("{\"workflow\": \"wf\", \"targetKeyspce\": \"customer\"}")).build();
    assertThatThrownBy(() -> converter.fromPayload(typo, SwitchTrafficRequest.class, SwitchTrafficRequest.class))
        .isInstanceOf(DataConverterException.class)
        .hasMessageStartingWith("SwitchTraffic input has unknown field targetKeyspce")
        .message().doesNotContain("Source", "Cannot construct", "Exception");
    Payload broken = typo.toBuilder().setData(ByteString.copyFromUtf8("{\"workflow\": ")).build();
    assertThatThrownBy(() -> converter.fromPayload(broken, SwitchTrafficRequest.class, SwitchTrafficRequest.class))
        .hasMessageStartingWith("the input is not valid JSON: Unexpected end-of-input")
        .message().doesNotContain("Source");
  }

  @Test
  void completeAndCancelRefuseFieldsTheyDoNotHave() {
    assertThat(problem("{\"workflow\":\"wf\",\"targetKeyspace\":\"ks\",\"renameTables\":true}", CancelRequest.class))
        .contains("CancelMigration input has unknown field renameTables");
    assertThat(problem("{\"workflow\":\"wf\",\"targetKeyspace\":\"ks\",\"keepdata\":true}", CompleteRequest.class))
        .contains("unknown field keepdata");
  }

  @Test
  void ignoreSourceKeyspaceIsReadForCompleteAndCancelAndWrittenOnlyWhenSet() throws Exception {
    CompleteRequest complete = JACKSON.readValue("{\"workflow\":\"wf\",\"targetKeyspace\":\"ks\","
        + "\"ignoreSourceKeyspace\":true}", CompleteRequest.class);
    assertThat(complete.ignoreSourceKeyspace()).isTrue();
    assertThat(complete).isEqualTo(CompleteRequest.of("wf", "ks").ignoringSourceKeyspace());
    assertThat(JACKSON.writeValueAsString(complete)).contains("\"ignoreSourceKeyspace\":true");
    assertThat(JACKSON.readValue(JACKSON.writeValueAsString(complete), CompleteRequest.class)).isEqualTo(complete);
    assertThat(JACKSON.writeValueAsString(CompleteRequest.of("wf", "ks"))).as("as recorded before the field")
        .doesNotContain("ignoreSourceKeyspace");
    assertThat(complete.with(true, true, false, true).ignoreSourceKeyspace()).as("kept by with").isTrue();

    CancelRequest cancel = JACKSON.readValue("{\"workflow\":\"wf\",\"targetKeyspace\":\"ks\","
        + "\"ignoreSourceKeyspace\":true,\"keepData\":true}", CancelRequest.class);
    assertThat(cancel.ignoreSourceKeyspace()).isTrue();
    assertThat(cancel).isEqualTo(CancelRequest.of("wf", "ks").with(true, false, false).ignoringSourceKeyspace());
    assertThat(JACKSON.readValue(JACKSON.writeValueAsString(cancel), CancelRequest.class)).isEqualTo(cancel);
    assertThat(JACKSON.writeValueAsString(CancelRequest.of("wf", "ks"))).doesNotContain("ignoreSourceKeyspace");
    assertThat(CancelRequest.of("wf", "ks").ignoreSourceKeyspace()).as("vtctldclient's default").isFalse();
  }

  @Test
  void aJournalGraceCannotBeHonouredWithoutTheSourceKeyspace() {
    assertThat(problem("{\"workflow\":\"wf\",\"targetKeyspace\":\"ks\",\"ignoreSourceKeyspace\":true,"
        + "\"journalGrace\":\"1h\"}", CompleteRequest.class)).contains("journalGrace")
        .contains("cannot be honoured with ignoreSourceKeyspace").contains("source keyspace's primaries");
    assertThat(problem("{\"workflow\":\"wf\",\"targetKeyspace\":\"ks\",\"ignoreSourceKeyspace\":\"yes\"}",
        CancelRequest.class)).contains("field 'ignoreSourceKeyspace' must be true or false");
  }

  @Test
  void goDurationsParseAndPrint() {
    assertThat(GoDurations.parseOrNull("1h2m3s")).isEqualTo(Duration.ofSeconds(3723));
    assertThat(GoDurations.parseOrNull("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(GoDurations.parseOrNull("10")).isNull();
    assertThat(GoDurations.parseOrNull("s")).isNull();
    assertThat(GoDurations.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
    assertThat(GoDurations.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
    assertThat(GoDurations.format(Duration.ofHours(2))).isEqualTo("2h0m0s");
    assertThatThrownBy(() -> SwitchTrafficRequest.of("wf", "ks").withTimeout(Duration.ofMillis(10)))
        .hasMessageContaining("at least 1s");
  }
}
