package io.pointsman.engine.primary;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.topo.TopologyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class TwoWallGateTest {
  private static final ShardRef SHARD = new ShardRef("commerce", "0");
  private static final WriteScope SCOPE = WriteScope.tables(List.of("customer"));

  private final List<String> calls = new ArrayList<>();

  /** A wall that records what is asked of it, in order, and keeps the tables it denies. */
  private WriteGatePort wall(String name) {
    return new WriteGatePort() {
      private final SortedSet<String> denied = new TreeSet<>();

      @Override
      public Duration deny(ShardRef shard, WriteScope scope, LockSet locks, Duration drainTimeout) {
        calls.add(name + " deny");
        denied.addAll(((WriteScope.Tables) scope).names());
        return Duration.ofMillis(10);
      }

      @Override
      public void allow(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
        calls.add(name + " allow");
        denied.removeAll(((WriteScope.Tables) scope).names());
      }

      @Override
      public void refresh(ShardRef shard) {
        calls.add(name + " refresh");
      }

      @Override
      public SortedSet<String> denied(ShardRef shard) {
        return denied;
      }
    };
  }

  @Test
  void vttabletsWallGoesUpFirstAndComesDownLast() {
    TwoWallGate gate = new TwoWallGate(wall("tablet"), wall("mysql"));
    assertThat(gate.deny(SHARD, SCOPE, TopologyStore.UNLOCKED, Duration.ofSeconds(1))).isEqualTo(Duration.ofMillis(20));
    assertThat(gate.denied(SHARD)).containsExactly("customer");
    assertThat(gate.deniedInMysql(SHARD)).containsExactly("customer");
    gate.allow(SHARD, SCOPE, TopologyStore.UNLOCKED, Duration.ofSeconds(1));
    gate.refresh(SHARD);
    assertThat(calls).containsExactly("tablet deny", "mysql deny", "mysql allow", "tablet allow", "tablet refresh");
    assertThat(gate.deniedInMysql(SHARD)).isEmpty();
  }
}
