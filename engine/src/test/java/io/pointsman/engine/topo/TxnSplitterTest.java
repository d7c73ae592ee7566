package io.pointsman.engine.topo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TxnSplitterTest {
  private static final StoreOptions SIX_OPS = new StoreOptions(Duration.ofSeconds(5), 3, 6, 1 << 20);

  @Test
  void everyPartCarriesEveryGuardAndTheWritesAreSplitAroundThem() {
    List<FencedTxn.EncodedWrite> writes = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      writes.add(new FencedTxn.EncodedWrite("/w" + i, 1, new byte[] {1}));
    }
    writes.add(new FencedTxn.EncodedWrite("/g1", 7, null, true));
    writes.add(new FencedTxn.EncodedWrite("/g2", 0, null, true));

    // 6 ops, 1 lock, 2 guards: 3 writes per part
    List<List<FencedTxn.EncodedWrite>> parts = TxnSplitter.split(writes, 1, SIX_OPS);

    assertThat(parts).hasSize(2);
    for (List<FencedTxn.EncodedWrite> part : parts) {
      assertThat(part.stream().filter(FencedTxn.EncodedWrite::guardOnly).map(FencedTxn.EncodedWrite::key))
          .containsExactly("/g1", "/g2");
      assertThat(part.size() + 1).isLessThanOrEqualTo(SIX_OPS.maxTxnOps());
    }
    assertThat(parts.stream().flatMap(List::stream).filter(w -> !w.guardOnly()).map(FencedTxn.EncodedWrite::key))
        .containsExactly("/w0", "/w1", "/w2", "/w3", "/w4");
  }

  @Test
  void writesWithoutGuardsSplitAsBefore() {
    List<FencedTxn.EncodedWrite> writes = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      writes.add(new FencedTxn.EncodedWrite("/w" + i, 1, new byte[] {1}));
    }
    assertThat(TxnSplitter.split(writes, 1, SIX_OPS)).extracting(List::size).containsExactly(5, 5);
  }
}
