package io.pointsman.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.SavedStream;
import io.pointsman.api.model.SequenceMetadata;
import io.pointsman.api.model.SequencePlan;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A step's progress line names what its result holds in words, not as the result's record. */
class StepsDescribeTest {
  private static SavedStream saved(String shard, long id) {
    return new SavedStream(shard, id, "commerce2customer", "keyspace:\"commerce\" shard:\"0\" filter:{rules:{}}",
        "MariaDB/0-100-149", "", 9223372036854775807L, 9223372036854775807L, "", "", 0, 0, "Stopped", "",
        "vt_customer", 1, 0, "{}");
  }

  @Test
  void savedStreamsAreNamedByWorkflowIdAndShard() {
    assertThat(Steps.describe(List.of(saved("-80", 1), saved("80-", 2)), "ignored"))
        .isEqualTo("2 streams saved: commerce2customer #1 on -80, commerce2customer #2 on 80-");
    assertThat(Steps.describe(List.of(saved("0", 7)), "ignored"))
        .isEqualTo("1 stream saved: commerce2customer #7 on 0");
  }

  @Test
  void aSequencePlanSaysWhatItInitializesAndWhetherItResets() {
    assertThat(Steps.describe(SequencePlan.NONE, "ignored")).isEqualTo("no sequence to initialize");
    SequencePlan plan = new SequencePlan(true,
        List.of(new SequenceMetadata("customer", "customer_id", "commerce", "customer_seq")));
    assertThat(Steps.describe(plan, "ignored"))
        .isEqualTo("initialize customer.customer_id from commerce.customer_seq; reset the source's sequences");
  }

  @Test
  void noResultKeepsTheDetailAndOthersTheirText() {
    assertThat(Steps.describe(null, "deny writes on commerce [0]")).isEqualTo("deny writes on commerce [0]");
    assertThat(Steps.describe(List.of(), "ignored")).isEqualTo("[]");
    assertThat(Steps.describe("x".repeat(400), "ignored")).hasSize(303).endsWith("...");
  }
}
