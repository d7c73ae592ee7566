package io.pointsman.engine.topo;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.WireFormat;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.codec.EncodedValues;
import io.pointsman.engine.topo.codec.RecordMappers;
import io.pointsman.engine.topo.codec.RecordMapper;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.KeyspaceRoutingRules;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardRoutingRules;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.VSchema;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * The one place that decides how records are encoded: as Vitess stores them, the binary protobuf
 * of the record's Vitess message (docs/architecture.md §6.1). A write is encoded over the message
 * its value was read from, so what the model does not hold (fields it lacks, fields newer than the
 * generated classes) is written back as it was. pointsman's own records beside the topology, which
 * have no Vitess message, are JSON ({@link OwnRecords}).
 */
public final class TopoCodec {
  private TopoCodec() {}

  /** Record types by the file name that ends their keys (TopoPaths), as Vitess names them. */
  private static final Map<String, Class<?>> BY_FILE_NAME = Map.ofEntries(
      Map.entry("Keyspace", Keyspace.class), Map.entry("Shard", Shard.class), Map.entry("VSchema", VSchema.class),
      Map.entry("RoutingRules", RoutingRules.class), Map.entry("ShardRoutingRules", ShardRoutingRules.class),
      // routing_rules/keyspace/Rules, as Vitess names the keyspace routing rules' file
      Map.entry("Rules", KeyspaceRoutingRules.class), Map.entry("MirrorRules", MirrorRules.class),
      Map.entry("CellInfo", CellInfo.class), Map.entry("SrvKeyspace", SrvKeyspace.class),
      Map.entry("SrvVSchema", SrvVSchema.class), Map.entry("Tablet", Tablet.class));

  /** The record type a topology key holds, by its last path element; empty for lock keys and others. */
  public static Optional<Class<?>> recordTypeAt(String key) {
    return Optional.ofNullable(BY_FILE_NAME.get(key.substring(key.lastIndexOf('/') + 1)));
  }

  /** The Vitess message stored for a record type, e.g. {@code topodata.Shard}. */
  public static String messageName(Class<?> type) {
    if (OwnRecords.owns(type)) {
      return OwnRecords.format(type);
    }
    return RecordMappers.forType(type).defaultInstance().getDescriptorForType().getFullName();
  }

  /** A value encoded: the bytes to store and the message they were serialized from (null for own records). */
  public record Encoded(byte[] bytes, Message message) {}

  /** A stored value decoded, with the message parsed from it (null for own records). */
  public record Decoded<T>(T value, Message message) {}

  /**
   * Encodes {@code value} over {@code base}, the stored bytes it was read from (null for a new
   * record). Map entries are written sorted by key, so an unchanged record encodes the same.
   */
  public static <T> byte[] encode(String key, T value, byte[] base, Class<T> type) {
    Message from = base == null || OwnRecords.owns(type) ? null : parse(key, base, type);
    return encode(key, value, from, null, type).bytes();
  }

  /**
   * Encodes {@code value} over {@code base}, the message parsed from the stored bytes it was read
   * from (null for a new record). {@code baseValue}, when given, is what {@code base} decodes to:
   * it lets a mapper keep the parts of {@code base} the value leaves as they were without
   * re-encoding them (see {@link RecordMapper#toProto(Object, Message, Object)}).
   */
  public static <T> Encoded encode(String key, T value, Message base, T baseValue, Class<T> type) {
    return encode(key, value, base, baseValue, type, new EncodedValues());
  }

  /**
   * As {@link #encode(String, Object, Message, Object, Class)}, as one write of a commit that has
   * encoded the values in {@code encoded} (see {@link EncodedValues}); adds this one to them.
   */
  public static <T> Encoded encode(String key, T value, Message base, T baseValue, Class<T> type,
      EncodedValues encoded) {
    if (OwnRecords.owns(type)) {
      return new Encoded(OwnRecords.encode(value), null);
    }
    RecordMapper<T, Message> mapper = RecordMappers.forType(type);
    Message m = base == null ? mapper.toProto(value, mapper.defaultInstance(), null, encoded)
        : mapper.toProto(value, base, baseValue, encoded);
    encoded.add(value, m);
    return new Encoded(bytes(m), m);
  }

  /** The record a stored value holds; INTERNAL naming the key and the message when it is not one. */
  public static <T> T decode(String key, byte[] bytes, Class<T> type) {
    return read(key, bytes, type).value();
  }

  /** As {@link #decode}, with the message the value was mapped from. */
  public static <T> Decoded<T> read(String key, byte[] bytes, Class<T> type) {
    if (OwnRecords.owns(type)) {
      return new Decoded<>(OwnRecords.decode(key, bytes, type), null);
    }
    RecordMapper<T, Message> mapper = RecordMappers.forType(type);
    Message m = parse(key, bytes, type);
    try {
      return new Decoded<>(mapper.fromProto(m), m);
    } catch (RuntimeException e) {
      throw invalid(key, type, e.getMessage(), e);
    }
  }

  /**
   * The Vitess message a stored value holds. Protobuf's parser takes many byte strings that were
   * never protobuf, so two more checks: JSON text (the layout pointsman wrote before) is refused by
   * its leading byte, and any group (wire type 3, which no Vitess topology message uses; '{' and
   * '[' read as the start of one) is refused wherever it is.
   */
  public static <M extends Message> M parse(String key, byte[] bytes, Class<?> type) {
    RecordMapper<?, Message> mapper = RecordMappers.forType(type);
    if (bytes.length > 0 && (bytes[0] == '{' || bytes[0] == '[')) {
      throw invalid(key, type, "it is JSON text (pointsman's old record layout), not binary protobuf", null);
    }
    Message m;
    try {
      m = mapper.defaultInstance().getParserForType().parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw invalid(key, type, e.getMessage(), e);
    }
    String group;
    try {
      group = findGroup(bytes, mapper.defaultInstance().getDescriptorForType());
    } catch (IOException e) {
      throw invalid(key, type, e.getMessage(), e);
    }
    if (group != null) {
      throw invalid(key, type, "it holds a group at " + group + ", which no Vitess record has", null);
    }
    @SuppressWarnings("unchecked")
    M typed = (M) m;
    return typed;
  }

  /** Deterministic binary encoding (map entries sorted by key). */
  public static byte[] bytes(Message m) {
    byte[] out = new byte[m.getSerializedSize()];
    CodedOutputStream cos = CodedOutputStream.newInstance(out);
    cos.useDeterministicSerialization();
    try {
      m.writeTo(cos);
    } catch (IOException e) {
      throw PointsmanException.internal("cannot encode " + m.getDescriptorForType().getFullName(), e);
    }
    cos.checkNoSpaceLeft();
    return out;
  }

  /**
   * The path of the first group in the message's bytes or its submessages', or null. Read off the
   * wire, after the parse succeeded: walking the parsed message by reflection built an entry object
   * for every element of every map (a thousand tables of a keyspace, twice in a SrvVSchema) and took
   * nearly as long as the parse itself. A length-delimited field is entered only when the message
   * type says it holds a message (a map's entries included); strings, bytes, packed numbers and
   * unknown length-delimited fields (a newer submessage or plain bytes) are skipped, as before.
   */
  private static String findGroup(byte[] bytes, Descriptor type) throws IOException {
    String below = groupIn(CodedInputStream.newInstance(bytes), type);
    return below == null ? null : type.getFullName() + below;
  }

  /** Where, from the stream's position to its limit, the first group starts ("" here, ".field..." below), or null. */
  private static String groupIn(CodedInputStream in, Descriptor type) throws IOException {
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      int wireType = WireFormat.getTagWireType(tag);
      if (wireType == WireFormat.WIRETYPE_START_GROUP || wireType == WireFormat.WIRETYPE_END_GROUP) {
        return "";
      }
      FieldDescriptor f = wireType == WireFormat.WIRETYPE_LENGTH_DELIMITED
          ? type.findFieldByNumber(WireFormat.getTagFieldNumber(tag)) : null;
      if (f == null || f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        in.skipField(tag);
        continue;
      }
      int limit = in.pushLimit(in.readRawVarint32());
      String below = groupIn(in, f.getMessageType());
      if (below != null) {
        return "." + f.getName() + below;
      }
      in.popLimit(limit);
    }
    return null;
  }

  private static PointsmanException invalid(String key, Class<?> type, String why, Throwable cause) {
    return new PointsmanException(ErrorCode.INTERNAL,
        "record at " + key + " is not a valid " + messageName(type) + ": " + why, cause);
  }
}
