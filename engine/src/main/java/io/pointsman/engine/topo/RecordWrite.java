package io.pointsman.engine.topo;

import java.util.Objects;
import java.util.Optional;

/**
 * One guarded write of a {@link TopologyStore#commit}: applied only if the record's mod revision is
 * still {@code expectedModRevision} (0: the record must not exist). A null value deletes the record;
 * a guard ({@code guardOnly}) writes nothing and only makes the commit depend on a record it was
 * planned from, so a plan built from a record someone changed meanwhile is refused, not applied.
 */
public record RecordWrite<T>(RecordKey<T> key, long expectedModRevision, T value, boolean guardOnly) {
  public RecordWrite {
    Objects.requireNonNull(key, "key");
    if (expectedModRevision < 0) {
      throw new IllegalArgumentException("expectedModRevision must not be negative");
    }
    if (guardOnly && value != null) {
      throw new IllegalArgumentException("a guard of " + key.key() + " carries no value");
    }
  }

  public RecordWrite(RecordKey<T> key, long expectedModRevision, T value) {
    this(key, expectedModRevision, value, false);
  }

  /** Writes nothing; the commit fails unless the record is still as it was read (absent if it was absent). */
  public static <T> RecordWrite<T> unchanged(RecordKey<T> key, Optional<Versioned<T>> read) {
    return new RecordWrite<>(key, read.map(Versioned::modRevision).orElse(0L), null, true);
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
    return value == null && !guardOnly;
  }
}
