package io.pointsman.sandbox.load;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The records of one load run, appended by its writers concurrently; {@link #records()} is a
 * consistent copy sorted by sequence number.
 */
public final class LoadLog {
  private final long startNanos;
  private final ConcurrentLinkedQueue<LoadRecord> records = new ConcurrentLinkedQueue<>();

  LoadLog(long startNanos) {
    this.startNanos = startNanos;
  }

  /** When the run started ({@link System#nanoTime()}): the due time of write 0. */
  public long startNanos() {
    return startNanos;
  }

  void add(LoadRecord record) {
    records.add(record);
  }

  public List<LoadRecord> records() {
    List<LoadRecord> copy = new ArrayList<>(records);
    copy.sort(Comparator.comparingLong(LoadRecord::seq));
    return List.copyOf(copy);
  }

  public int size() {
    return records.size();
  }

  /** How many writes were acknowledged so far. */
  public long acknowledged() {
    return records.stream().filter(LoadRecord::acknowledged).count();
  }
}
