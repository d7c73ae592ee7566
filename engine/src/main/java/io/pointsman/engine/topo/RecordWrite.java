package io.pointsman.engine.topo;

import java.util.Objects;

/**
 * One guarded write of a {@link TopologyStore#commit}: applied only if the record's mod revision is
 * still {@code expectedModRevision} (0: the record must not exist). A null value deletes the record.
 */
public record RecordWrite<T>(RecordKey<T> key, long expectedModRevision, T value) {
  public RecordWrite {
    Objects.requireNonNull(key, "key");
    if (expectedModRevision < 0) {
      throw new IllegalArgumentException("expectedModRevision must not be negative");
    }
  }

  /** Replaces a record read earlier, if it has not changed since. */
  public static <T> RecordWrite<T> replace(Versioned<T> read, T value) {
    return new RecordWrite<>(read.key(), read.modRevision(), Objects.requireNonNull(value, "value"));
  }

  /** Creates a record that must not exist yet. */
  public static <T> RecordWrite<T> create(RecordKey<T> key, T value) {
    return new RecordWrite<>(key, 0, Objects.requireNonNull(value, "value"));
  }

  /** Deletes a record read earlier, if it has not changed since. */
  public static <T> RecordWrite<T> delete(Versioned<T> read) {
    return new RecordWrite<>(read.key(), read.modRevision(), null);
  }

  public boolean isDelete() {
    return value == null;
  }
}
