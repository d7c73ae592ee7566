package io.pointsman.api.lock;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import io.pointsman.api.request.TimeLimits;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Lock tokens travel in workflow history as JSON, written by Temporal's default converter. */
class LockTokenJsonTest {
  private static final LockToken TOKEN = new LockToken("/vitess/global/keyspaces/customer/locks/7587", "keyspace customer",
      7587L, 42L, Duration.ofSeconds(30), Instant.parse("2026-01-02T03:04:05Z"), Duration.ofMinutes(3));

  @Test
  void aLockSetSurvivesTheRoundTripThroughTemporalsConverter() {
    LockSet set = LockSet.of(TOKEN);
    var converter = DefaultDataConverter.STANDARD_INSTANCE;

    LockSet back = converter.fromPayloads(0, converter.toPayloads(set), LockSet.class, LockSet.class);

    assertThat(back).isEqualTo(set);
    assertThat(back.locks().get(0).maxHold()).isEqualTo(Duration.ofMinutes(3));
  }

  @Test
  void aTokenWrittenBeforeTokensCarriedMaxHoldReadsWithTheDefault() throws Exception {
    ObjectMapper mapper = JacksonJsonPayloadConverter.newDefaultObjectMapper();
    String old = "{\"key\":\"/k/locks/1\",\"resource\":\"keyspace customer\",\"leaseId\":1,\"createRevision\":5,"
        + "\"ttl\":30.000000000,\"acquiredAt\":1767323045.000000000}";

    LockToken token = mapper.readValue(old, LockToken.class);

    assertThat(token.maxHold()).isEqualTo(TimeLimits.DEFAULT_MAX_LOCK_HOLD);
    assertThat(token.ttl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(token.createRevision()).isEqualTo(5);
  }

  @Test
  void theShortConstructorGivesTheDefaultMaxHold() {
    LockToken token = new LockToken("/k/locks/1", "keyspace customer", 1, 5, Duration.ofSeconds(30), Instant.now());

    assertThat(token.maxHold()).isEqualTo(TimeLimits.DEFAULT_MAX_LOCK_HOLD);
    assertThat(token.fencingToken()).isEqualTo(5);
  }
}
