package io.pointsman.api.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.request.PlainInputConverter;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The switcher as workflow history carries it, and what ignoring its source changes. */
class MigrationInfoTest {
  private static final DataConverter CONVERTER = PlainInputConverter.dataConverter();
  private static final MigrationInfo MOVE = new MigrationInfo("commerce2customer", "commerce", "customer",
      MigrationType.TABLES, List.of("corder", "customer"), List.of("0"), List.of("-80", "80-"),
      List.of(new StreamRef("-80", 1, "0"), new StreamRef("80-", 1, "0")), 42, true);

  @Test
  void aSwitcherWithItsSourceEncodesAsOneRecordedBeforeTheFieldExisted() {
    String json = json(MOVE);
    assertThat(json).doesNotContain("sourceIgnored");
    // a payload from a history recorded before sourceIgnored: the same fields, without it
    assertThat(decode(json)).isEqualTo(MOVE);
    assertThat(decode(json).sourceIgnored()).isFalse();
  }

  @Test
  void ignoringTheSourceIsRecordedAndLocksTheTargetKeyspaceAlone() {
    MigrationInfo ignoring = MOVE.ignoringSource();
    assertThat(MOVE.keyspaces()).containsExactly("commerce", "customer");
    assertThat(ignoring.keyspaces()).containsExactly("customer");
    assertThat(json(ignoring)).contains("\"sourceIgnored\":true");
    assertThat(decode(json(ignoring))).isEqualTo(ignoring);
    PrimaryTerm term = new PrimaryTerm("zone1-0000000200", "2026-12-07T22:00:00Z");
    assertThat(ignoring.withPlannedPrimaries(Map.of("customer/-80", term)).sourceIgnored())
        .as("kept when primaries are planned").isTrue();
  }

  private static String json(MigrationInfo info) {
    Payload p = CONVERTER.toPayload(info).orElseThrow();
    return p.getData().toString(StandardCharsets.UTF_8);
  }

  private static MigrationInfo decode(String json) {
    Payload p = CONVERTER.toPayload(MOVE).orElseThrow().toBuilder()
        .setData(com.google.protobuf.ByteString.copyFromUtf8(json)).build();
    return CONVERTER.fromPayload(p, MigrationInfo.class, MigrationInfo.class);
  }
}
