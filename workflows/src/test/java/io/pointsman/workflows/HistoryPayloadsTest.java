package io.pointsman.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.SavedStream;
import io.pointsman.api.model.ShardPositions;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.model.StreamRef;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Everything that travels in workflow history survives Temporal's own JSON converter (which fails
 * on unknown properties): a derived getter turned into a property would break decoding.
 */
class HistoryPayloadsTest {
  private static final DataConverter CONVERTER = DefaultDataConverter.newDefaultInstance();

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T value) {
    Class<T> type = (Class<T>) value.getClass();
    return CONVERTER.fromPayload(CONVERTER.toPayload(value).orElseThrow(), type, type);
  }

  @Test
  void everyHistoryTypeRoundTrips() {
    LockToken token = new LockToken("/vitess/global/keyspaces/customer/locks/7", "keyspace customer", 7, 42,
        Duration.ofSeconds(120), Instant.parse("2026-12-02T10:00:00Z"));
    LockSet locks = LockSet.of(token);
    assertThat(roundTrip(locks)).isEqualTo(locks);
    MigrationInfo info = new MigrationInfo("commerce2customer", "commerce", "customer", MigrationType.TABLES,
        List.of("corder", "customer"), List.of("0"), List.of("-80", "80-"),
        List.of(new StreamRef("-80", 1, "0"), new StreamRef("80-", 1, "0")), 123456789L, false);
    assertThat(roundTrip(info)).isEqualTo(info);
    WorkflowState state = new WorkflowState("wf", "commerce", "customer", MigrationType.TABLES, List.of("zone1"),
        List.of(), List.of(), List.of("zone1"), true);
    assertThat(roundTrip(state)).isEqualTo(state);
    ShardPositions positions = new ShardPositions(Map.of("0", "MariaDB/0-100-42"), Map.of("-80", "MariaDB/0-300-7"));
    assertThat(roundTrip(positions)).isEqualTo(positions);
    SavedStream saved = new SavedStream("0", 3, "wf_reverse", "{}", "MariaDB/0-1-2", null, 1, 2, "", "", 10, 11,
        "Stopped", "", "vt_commerce", 1, 0, "{}");
    assertThat(roundTrip(saved)).isEqualTo(saved);
    Progress progress = new Progress("SwitchTraffic", "done",
        List.of(new StepProgress("canSwitch", StepStatus.DONE, Instant.EPOCH, Instant.EPOCH, "")), List.of(token),
        List.of("line"));
    assertThat(roundTrip(progress)).isEqualTo(progress);
    SwitchTrafficRequest request = SwitchTrafficRequest.of("wf", "customer").withDryRun(true);
    assertThat(roundTrip(request)).isEqualTo(request);
  }
}
