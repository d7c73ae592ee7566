package io.pointsman.engine.topo;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The stored bytes of the records read or written lately, by key and mod revision: the base a
 * write of a value read at that revision is encoded over (see {@link TopoCodec#encode}). A write
 * is guarded by that same revision, so these bytes are exactly what the value came from. Bounded
 * in entries and bytes, least recently used first out; a miss is read back from etcd at the
 * revision. Thread-safe.
 */
final class StoredBytes {
  private record Version(String key, long modRevision) {}

  private final int maxEntries;
  private final long maxBytes;
  private final LinkedHashMap<Version, byte[]> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  StoredBytes(int maxEntries, long maxBytes) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  synchronized void put(String key, long modRevision, byte[] value) {
    byte[] old = entries.put(new Version(key, modRevision), value);
    bytes += value.length - (old == null ? 0 : old.length);
    Iterator<Map.Entry<Version, byte[]>> eldest = entries.entrySet().iterator();
    while ((entries.size() > maxEntries || bytes > maxBytes) && eldest.hasNext()) {
      bytes -= eldest.next().getValue().length;
      eldest.remove();
    }
  }

  /** The bytes at that revision, or null when not kept. */
  synchronized byte[] get(String key, long modRevision) {
    return entries.get(new Version(key, modRevision));
  }
}
