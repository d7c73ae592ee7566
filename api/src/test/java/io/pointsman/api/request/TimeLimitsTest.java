package io.pointsman.api.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The defaults and rules of an action's time limits: each default's text and Duration agree, every
 * request that carries a limit defaults it from there, and the rules refuse exactly below their
 * bounds, with the same words whichever request carries the field.
 */
class TimeLimitsTest {
  private static final ObjectMapper JACKSON = new ObjectMapper();

  @Test
  void theDefaultsAreThoseVtctldclientAndTheLockDocumentName() {
    assertThat(TimeLimits.DEFAULT_TIMEOUT).isEqualTo(Duration.ofSeconds(30));
    assertThat(TimeLimits.DEFAULT_MAX_REPLICATION_LAG).isEqualTo(Duration.ofSeconds(30));
    assertThat(TimeLimits.DEFAULT_LOCK_TTL).isEqualTo(Duration.ofMinutes(2));
    assertThat(TimeLimits.DEFAULT_MAX_LOCK_HOLD).isEqualTo(Duration.ofMinutes(10));
    assertThat(TimeLimits.DEFAULT_LOCK_ACQUIRE_TIMEOUT).isEqualTo(Duration.ofSeconds(45));
    assertThat(TimeLimits.MIN_TIMEOUT).isEqualTo(Duration.ofSeconds(1));
    assertThat(TimeLimits.MIN_LOCK_TTL).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void everyRequestTakesItsDefaultsFromTimeLimits() {
    SwitchTrafficRequest s = SwitchTrafficRequest.of("wf", "customer");
    CompleteRequest c = CompleteRequest.of("wf", "customer");
    CancelRequest x = CancelRequest.of("wf", "customer");

    assertThat(s.timeout()).isEqualTo(TimeLimits.DEFAULT_TIMEOUT);
    assertThat(s.maxReplicationLagAllowed()).isEqualTo(TimeLimits.DEFAULT_MAX_REPLICATION_LAG);
    assertThat(Stream.of(s.lockTtl(), c.lockTtl(), x.lockTtl())).containsOnly(TimeLimits.DEFAULT_LOCK_TTL);
    assertThat(Stream.of(s.maxLockHold(), c.maxLockHold(), x.maxLockHold()))
        .containsOnly(TimeLimits.DEFAULT_MAX_LOCK_HOLD);
  }

  @Test
  void timeoutIsRefusedBelowOneSecondOnly() {
    assertThat(TimeLimitRules.timeout(Duration.ofMillis(999))).contains("must be at least 1s, got 999ms");
    assertThat(TimeLimitRules.timeout(Duration.ofSeconds(1))).isEmpty();
    assertThat(TimeLimitRules.maxReplicationLagAllowed(Duration.ZERO)).isEmpty();
  }

  @Test
  void lockTtlIsRefusedBelowTwoSecondsAndMaxLockHoldUnlessLonger() {
    assertThat(TimeLimitRules.lockTtl(Duration.ofMillis(1999))).contains("must be at least 2s, got 1.999s");
    assertThat(TimeLimitRules.lockTtl(Duration.ofSeconds(2))).isEmpty();
    assertThat(TimeLimitRules.maxLockHold(Duration.ofMinutes(2), Duration.ofMinutes(2)))
        .contains("must be longer than lockTtl (2m0s), got 2m0s");
    assertThat(TimeLimitRules.maxLockHold(Duration.ofMinutes(2).plusMillis(1), Duration.ofMinutes(2))).isEmpty();
  }

  static Stream<Arguments> requests() {
    return Stream.of(
        Arguments.of("SwitchTraffic", (Function<JsonNode, Object>) SwitchTrafficRequest::fromJson),
        Arguments.of("CompleteMigration", (Function<JsonNode, Object>) CompleteRequest::fromJson),
        Arguments.of("CancelMigration", (Function<JsonNode, Object>) CancelRequest::fromJson));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("requests")
  void everyRequestRefusesLockTimesWithTheSameWords(String name, Function<JsonNode, Object> decoder) {
    Function<Map<String, Object>, Object> decode = fields -> {
      Map<String, Object> m = new HashMap<>(fields);
      m.put("workflow", "wf");
      m.put("targetKeyspace", "customer");
      return decoder.apply(JACKSON.valueToTree(m));
    };

    assertThatThrownBy(() -> decode.apply(Map.of("lockTtl", "1s")))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage(name + " input field 'lockTtl' must be at least 2s, got 1s");
    assertThatThrownBy(() -> decode.apply(Map.of("lockTtl", "5m", "maxLockHold", "5m")))
        .hasMessage(name + " input field 'maxLockHold' must be longer than lockTtl (5m0s), got 5m0s");
    assertThatThrownBy(() -> decode.apply(Map.of("lockTtl", "PT-1S")))
        .hasMessage(name + " input field 'lockTtl' must not be negative");
    assertThat(decode.apply(Map.of("lockTtl", "2s", "maxLockHold", "3s"))).isNotNull();
  }

  @Test
  void switchTrafficRefusesAShortTimeoutNamingIt() {
    assertThatThrownBy(() -> SwitchTrafficRequest.fromJson(JACKSON.valueToTree(
        Map.of("workflow", "wf", "targetKeyspace", "customer", "timeout", "500ms"))))
        .hasMessage("SwitchTraffic input field 'timeout' must be at least 1s, got 500ms");
  }
}
