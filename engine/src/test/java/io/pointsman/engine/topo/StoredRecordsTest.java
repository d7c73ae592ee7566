package io.pointsman.engine.topo;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.topo.StoredRecords.StoredRecord;
import io.pointsman.engine.topo.model.Keyspace;
import org.junit.jupiter.api.Test;

class StoredRecordsTest {
  private static final byte[] BYTES = {1, 2, 3};

  /** An etcd wiped and started again reuses revisions: a value kept for other bytes is not served. */
  @Test
  void aKeptValueIsServedOnlyForTheBytesItWasDecodedFromAndAsItsOwnType() {
    Keyspace value = Keyspace.normal();
    StoredRecord kept = new StoredRecord(BYTES, null, value);
    assertThat(kept.valueIfSame(new byte[] {1, 2, 3}, Keyspace.class)).isSameAs(value);
    assertThat(kept.valueIfSame(new byte[] {1, 2, 4}, Keyspace.class)).isNull();
    assertThat(kept.valueIfSame(BYTES, String.class)).isNull();
    assertThat(StoredRecord.bytesOnly(BYTES).valueIfSame(BYTES, Keyspace.class)).isNull();
  }

  @Test
  void theLeastRecentlyUsedGoFirstWhenEntriesOrBytesAreOverTheirBound() {
    StoredRecords records = new StoredRecords(2, 8);
    records.put("a", 1, StoredRecord.bytesOnly(BYTES));
    records.put("b", 1, StoredRecord.bytesOnly(BYTES));
    assertThat(records.get("a", 1)).isNotNull(); // a is now the most recently used
    records.put("c", 1, StoredRecord.bytesOnly(BYTES));
    assertThat(records.get("b", 1)).isNull();
    assertThat(records.get("a", 1)).isNotNull();
    records.put("d", 1, StoredRecord.bytesOnly(new byte[6])); // 3 + 6 + 3 bytes: over 8
    assertThat(records.get("c", 1)).isNull();
    assertThat(records.get("a", 1)).isNull();
    assertThat(records.get("d", 1)).isNotNull();
  }

  @Test
  void theNewestRevisionKeptOfAKeyIsFoundAndForgottenWithItsEntry() {
    StoredRecords records = new StoredRecords(3, 1024);
    StoredRecord five = StoredRecord.bytesOnly(BYTES);
    records.put("a", 5, five);
    records.put("a", 3, StoredRecord.bytesOnly(BYTES)); // an older revision read later
    assertThat(records.newest("a")).isSameAs(five);
    assertThat(records.newest("b")).isNull();
    records.put("b", 1, StoredRecord.bytesOnly(BYTES));
    records.get("a", 3);
    records.put("c", 1, StoredRecord.bytesOnly(BYTES)); // over 3 entries: a@5 is the least recently used
    assertThat(records.get("a", 5)).isNull();
    assertThat(records.newest("a")).isNull();
  }
}
