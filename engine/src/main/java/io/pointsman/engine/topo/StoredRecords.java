package io.pointsman.engine.topo;

import com.google.protobuf.Message;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The records read or written lately, by key and mod revision: their stored bytes, which are the
 * base a write of a value read at that revision is encoded over (see {@link TopoCodec#encode}),
 * and, when known, the message parsed from them and the value decoded. A write is guarded by that
 * same revision, so these bytes are exactly what the value came from.
 *
 * <p>The message and value are kept because a switch reads and writes the same large records
 * again and again: at a thousand moved tables the routing rules and each cell's SrvVSchema are
 * hundreds of kilobytes, and decoding, parsing and re-encoding them cost more than the etcd round
 * trips inside the write window. Values are immutable records, so one instance can be handed to
 * every reader. Bounded in entries and bytes, least recently used first out; a miss is read back
 * from etcd at the revision. The newest revision kept of each key is known too ({@link #newest}):
 * a record written again as it is, for its watchers, has a new revision and the same bytes.
 * Thread-safe.
 */
final class StoredRecords {
  /**
   * @param message the Vitess message parsed from {@code bytes}; null when not parsed yet, and for
   *     pointsman's own JSON records
   * @param value the record decoded from {@code bytes}; null when not decoded yet
   */
  record StoredRecord(byte[] bytes, Message message, Object value) {
    static StoredRecord bytesOnly(byte[] bytes) {
      return new StoredRecord(bytes, null, null);
    }

    /** The value, when it was decoded from exactly {@code stored} as a {@code type}. */
    <T> T valueIfSame(byte[] stored, Class<T> type) {
      // The same key and revision name the same bytes in one etcd; compared all the same, as a
      // store can outlive an etcd whose data was wiped and whose revisions started again.
      return type.isInstance(value) && Arrays.equals(bytes, stored) ? type.cast(value) : null;
    }
  }

  private record Version(String key, long modRevision) {}

  private final int maxEntries;
  private final long maxBytes;
  private final LinkedHashMap<Version, StoredRecord> entries = new LinkedHashMap<>(64, 0.75f, true);
  /** Key → the highest revision of it among the entries. */
  private final Map<String, Long> newestRevision = new HashMap<>();
  private long bytes;

  StoredRecords(int maxEntries, long maxBytes) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  synchronized void put(String key, long modRevision, StoredRecord record) {
    StoredRecord old = entries.put(new Version(key, modRevision), record);
    bytes += record.bytes().length - (old == null ? 0 : old.bytes().length);
    newestRevision.merge(key, modRevision, Math::max);
    Iterator<Map.Entry<Version, StoredRecord>> eldest = entries.entrySet().iterator();
    while ((entries.size() > maxEntries || bytes > maxBytes) && eldest.hasNext()) {
      Map.Entry<Version, StoredRecord> out = eldest.next();
      bytes -= out.getValue().bytes().length;
      eldest.remove();
      newestRevision.remove(out.getKey().key(), out.getKey().modRevision());
    }
  }

  /** What is kept of the newest revision of the key among those kept, or null. */
  synchronized StoredRecord newest(String key) {
    Long revision = newestRevision.get(key);
    return revision == null ? null : entries.get(new Version(key, revision));
  }

  /** What is kept of the record at that revision, or null. */
  synchronized StoredRecord get(String key, long modRevision) {
    return entries.get(new Version(key, modRevision));
  }
}
