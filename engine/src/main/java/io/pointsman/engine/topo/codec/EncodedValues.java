package io.pointsman.engine.topo.codec;

import com.google.protobuf.Message;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The messages one commit has encoded so far, by the model value each was encoded from. A record
 * that serves another record's value takes that message instead of building it again: a rebuild
 * saves the routing rules and serves the same rules in each cell's SrvVSchema in one commit, and at
 * a thousand moved tables building those nine thousand rules over a base costs about two
 * milliseconds inside the write window. By identity: the same instance is the same rules, while an
 * equal one would cost a comparison of them all. One commit's, on one thread; not thread-safe.
 */
public final class EncodedValues {
  private final Map<Object, Message> byValue = new IdentityHashMap<>();

  /** Notes that {@code value} was encoded as {@code message}. */
  public void add(Object value, Message message) {
    if (value != null && message != null) {
      byValue.put(value, message);
    }
  }

  /** The message {@code value} (this very instance) was encoded as, if it is a {@code type}; else null. */
  public <M extends Message> M messageOf(Object value, Class<M> type) {
    Message m = byValue.get(value);
    return type.isInstance(m) ? type.cast(m) : null;
  }
}
