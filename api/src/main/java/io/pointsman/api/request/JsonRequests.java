package io.pointsman.api.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builds request JSON trees for the Java-side constructors of the request records. */
final class JsonRequests {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private JsonRequests() {}

  static JsonNode object(Map<String, ?> fields) {
    return MAPPER.valueToTree(fields);
  }

  /**
   * A request's JSON with one field replaced: decoded again by its request's {@code fromJson}, a
   * copy made with a {@code with...} method is validated like any input.
   */
  static JsonNode replaced(Map<String, Object> json, String field, Object value) {
    Map<String, Object> m = new LinkedHashMap<>(json);
    m.put(field, value);
    return object(m);
  }

  /** A request's JSON, in order, starting with the two fields every request names. */
  static Map<String, Object> fieldsOf(String workflow, String targetKeyspace) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("workflow", workflow);
    m.put("targetKeyspace", targetKeyspace);
    return m;
  }
}
