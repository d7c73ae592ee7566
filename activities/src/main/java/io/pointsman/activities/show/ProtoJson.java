package io.pointsman.activities.show;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import java.util.List;

/**
 * Protobuf JSON as vtctldclient prints it (Go's protojson with UseProtoNames and EmitUnpopulated):
 * snake_case field names, enums by name, every field present — including singular message fields
 * that are unset, which Go prints as {@code null} and Java's printer leaves out.
 */
final class ProtoJson {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final JsonFormat.Printer PRINTER =
      JsonFormat.printer().preservingProtoFieldNames().alwaysPrintFieldsWithNoPresence();

  private ProtoJson() {}

  static String print(MessageOrBuilder message) {
    try {
      ObjectNode node = (ObjectNode) JSON.readTree(PRINTER.print(message));
      addNulls(message, node);
      return JSON.writeValueAsString(node);
    } catch (InvalidProtocolBufferException | JsonProcessingException e) {
      throw new IllegalStateException("cannot print " + message.getDescriptorForType().getFullName() + " as JSON", e);
    }
  }

  private static void addNulls(MessageOrBuilder m, ObjectNode node) {
    for (FieldDescriptor f : m.getDescriptorForType().getFields()) {
      if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE || isWellKnown(f)) {
        continue;
      }
      JsonNode child = node.get(f.getName());
      if (f.isMapField()) {
        FieldDescriptor value = f.getMessageType().findFieldByName("value");
        if (value.getJavaType() == FieldDescriptor.JavaType.MESSAGE && child instanceof ObjectNode map) {
          @SuppressWarnings("unchecked")
          List<Message> entries = (List<Message>) m.getField(f);
          for (Message e : entries) {
            Object key = e.getField(e.getDescriptorForType().findFieldByName("key"));
            JsonNode v = map.get(String.valueOf(key));
            if (v instanceof ObjectNode o) {
              addNulls((Message) e.getField(value), o);
            }
          }
        }
      } else if (f.isRepeated()) {
        if (child instanceof ArrayNode array) {
          for (int i = 0; i < m.getRepeatedFieldCount(f); i++) {
            if (array.get(i) instanceof ObjectNode o) {
              addNulls((Message) m.getRepeatedField(f, i), o);
            }
          }
        }
      } else if (!m.hasField(f)) {
        node.putNull(f.getName());
      } else if (child instanceof ObjectNode o) {
        addNulls((Message) m.getField(f), o);
      }
    }
  }

  /** Well-known types print as scalars (a Duration as "1s"), so there is nothing inside to fill. */
  private static boolean isWellKnown(FieldDescriptor f) {
    return f.getMessageType().getFile().getPackage().equals("google.protobuf");
  }
}
