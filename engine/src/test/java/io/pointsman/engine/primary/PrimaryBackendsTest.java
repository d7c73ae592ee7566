package io.pointsman.engine.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PrimaryBackendsTest {
  private static final ShardRef SANDBOX = new ShardRef("commerce", "0");
  private static final ShardRef VITESS = new ShardRef("customer", "-80");
  private static final ShardRef NO_PRIMARY = new ShardRef("customer", "80-");

  private final PrimaryPorts direct = ports();
  private final PrimaryPorts tablet = ports();
  private final Map<ShardRef, Optional<Boolean>> records = new HashMap<>(Map.of(
      SANDBOX, Optional.of(false), VITESS, Optional.of(true), NO_PRIMARY, Optional.empty()));
  private final AtomicInteger reads = new AtomicInteger();

  private PrimaryBackends backends(PrimaryBackend backend) {
    return new PrimaryBackends(backend, direct, tablet, shard -> {
      reads.incrementAndGet();
      return records.get(shard);
    });
  }

  @Test
  void autoPicksTheTabletWhereThePrimaryRecordHasAGrpcPortAndMysqlElsewhere() {
    PrimaryBackends b = backends(PrimaryBackend.AUTO);
    assertThat(b.of(VITESS)).isSameAs(tablet);
    assertThat(b.byTablet(VITESS)).isTrue();
    assertThat(b.of(SANDBOX)).isSameAs(direct);
    assertThat(b.byTablet(SANDBOX)).isFalse();
  }

  @Test
  void aChoiceIsRememberedOnceThePrimaryRecordSaidButNotBefore() {
    PrimaryBackends b = backends(PrimaryBackend.AUTO);
    assertThat(b.of(NO_PRIMARY)).isSameAs(direct);
    records.put(NO_PRIMARY, Optional.of(true));
    assertThat(b.of(NO_PRIMARY)).isSameAs(tablet);
    int after = reads.get();
    b.of(NO_PRIMARY);
    b.of(NO_PRIMARY);
    assertThat(reads.get()).isEqualTo(after);
  }

  @Test
  void aForcedBackendNeverReadsTheRecords() {
    assertThat(backends(PrimaryBackend.TABLET).of(SANDBOX)).isSameAs(tablet);
    assertThat(backends(PrimaryBackend.DIRECT).of(VITESS)).isSameAs(direct);
    assertThat(reads.get()).isZero();
  }

  @Test
  void theSettingIsParsedCaseInsensitivelyAndABadOneIsNamed() {
    assertThat(PrimaryBackend.parse("X", " Tablet ")).isEqualTo(PrimaryBackend.TABLET);
    assertThat(PrimaryBackend.parse("X", "")).isEqualTo(PrimaryBackend.AUTO);
    assertThatThrownBy(() -> PrimaryBackend.parse("POINTSMAN_PRIMARY_BACKEND", "mysql"))
        .isInstanceOf(PointsmanException.class)
        .hasMessage("POINTSMAN_PRIMARY_BACKEND must be auto, tablet or direct, got 'mysql'");
  }

  /** Distinct port sets; the choice is what is tested, so their parts must never be called. */
  private static PrimaryPorts ports() {
    return new PrimaryPorts(proxy(StreamsPort.class), proxy(PositionsPort.class), proxy(JournalsPort.class),
        proxy(WriteGatePort.class), proxy(TablesPort.class), proxy(SequencesPort.class),
        proxy(StreamReadinessPort.class));
  }

  private static <T> T proxy(Class<T> type) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
      throw new AssertionError(type.getSimpleName() + "." + m.getName() + " was called");
    }));
  }
}
