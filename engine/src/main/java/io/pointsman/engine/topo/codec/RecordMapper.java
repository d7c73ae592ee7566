package io.pointsman.engine.topo.codec;

import com.google.protobuf.Message;

/**
 * Maps one topology record model onto the Vitess message stored for it. The models hold only what
 * pointsman reads, so {@link #toProto} writes them over the message they were read from: every
 * field the model lacks, and every field newer than the generated classes (kept by protobuf as
 * unknown fields), survives a read-modify-write.
 *
 * @param <T> the record model
 * @param <M> the Vitess message
 */
public interface RecordMapper<T, M extends Message> {
  /** The message a record is created from (nothing to keep). */
  M defaultInstance();

  T fromProto(M message);

  /**
   * {@code base} with the fields the model represents set from {@code value}. Nested and repeated
   * structures the model holds only in part are matched by identity (a name, a tablet type) so the
   * part it lacks is kept; an entry the model no longer has is dropped.
   */
  M toProto(T value, M base);

  /**
   * As {@link #toProto(Object, Message)}, knowing that {@code base} decodes to {@code baseValue}
   * (null when not known): a mapper may then keep a part of {@code base} whose model is unchanged
   * as it is, instead of writing it again over itself. The result must be what
   * {@link #toProto(Object, Message)} would give, or differ only in keeping that part exactly as
   * stored.
   */
  default M toProto(T value, M base, T baseValue) {
    return toProto(value, base);
  }

  /**
   * As {@link #toProto(Object, Message, Object)}, in a commit that has already encoded the values
   * in {@code encoded}: a mapper whose record serves one of them as a part may take its message
   * for that part, if the record it serves is what that part must hold.
   */
  default M toProto(T value, M base, T baseValue, EncodedValues encoded) {
    return toProto(value, base, baseValue);
  }
}
