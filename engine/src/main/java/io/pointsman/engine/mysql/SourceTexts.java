package io.pointsman.engine.mysql;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The {@code source} columns read and written lately, each with the {@link BinlogSource} it
 * encodes, so that the same stream is not parsed or printed again and again. A switch reads its
 * streams in almost every step, and at a thousand moved tables a source is some 100 KB of
 * protobuf text whose parse takes about a millisecond (and its print more than half of one) per
 * stream per read, inside the write window. A {@link BinlogSource} is an immutable record, so one
 * instance can be handed to every reader.
 *
 * <p>Bounded in entries and in characters, least recently used first out. Only successful
 * conversions are kept: a value that fails to parse fails again, naming its row, on every read.
 * Thread-safe; a conversion runs outside the lock, so two threads may both make one.
 */
final class SourceTexts {
  private final int maxEntries;
  private final long maxChars;
  private final LinkedHashMap<String, BinlogSource> byText = new LinkedHashMap<>(64, 0.75f, true);
  private final LinkedHashMap<BinlogSource, String> bySource = new LinkedHashMap<>(64, 0.75f, true);
  private long chars;

  SourceTexts(int maxEntries, long maxChars) {
    if (maxEntries < 1 || maxChars < 1) {
      throw new IllegalArgumentException("bounds must be positive, were " + maxEntries + " entries and " + maxChars
          + " characters");
    }
    this.maxEntries = maxEntries;
    this.maxChars = maxChars;
  }

  /** The source {@code text} encodes: kept from before, or {@code parse}d now and kept. */
  BinlogSource decode(String text, Function<String, BinlogSource> parse) {
    return knownOrMade(byText, text, parse, this::keep);
  }

  /** The text of {@code source}: kept from before, or {@code print}ed now and kept. */
  String encode(BinlogSource source, Function<BinlogSource, String> print) {
    return knownOrMade(bySource, source, print, (s, text) -> keep(text, s));
  }

  /** What {@code known} holds for {@code key}, or what {@code make} makes of it outside the lock, then kept. */
  private <K, V> V knownOrMade(Map<K, V> known, K key, Function<K, V> make, BiConsumer<K, V> keep) {
    synchronized (this) {
      V found = known.get(key);
      if (found != null) {
        return found;
      }
    }
    V made = make.apply(key);
    keep.accept(key, made);
    return made;
  }

  /** How many pairs are kept (for tests). */
  synchronized int size() {
    return byText.size();
  }

  private synchronized void keep(String text, BinlogSource source) {
    BinlogSource old = byText.put(text, source);
    if (old == null) {
      chars += text.length();
    } else if (!old.equals(source)) {
      bySource.remove(old, text);
    }
    bySource.put(source, text);
    Iterator<Map.Entry<String, BinlogSource>> eldest = byText.entrySet().iterator();
    while ((byText.size() > maxEntries || chars > maxChars) && eldest.hasNext()) {
      Map.Entry<String, BinlogSource> e = eldest.next();
      chars -= e.getKey().length();
      // Two texts may encode one source (Go's spacing and Java's): the source keeps the newer.
      bySource.remove(e.getValue(), e.getKey());
      eldest.remove();
    }
  }
}
