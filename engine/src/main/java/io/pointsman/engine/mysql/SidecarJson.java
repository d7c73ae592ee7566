package io.pointsman.engine.mysql;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.model.KeyRange;
import java.io.IOException;

/**
 * How JSON columns of the sidecar tables are encoded ({@code vreplication.source},
 * {@code resharding_journal.val}): Vitess's proto field names in snake_case, empty fields left
 * out as protojson does, unknown fields ignored so rows written by newer writers still read.
 */
final class SidecarJson {
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_EMPTY, JsonInclude.Include.NON_EMPTY))
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .addMixIn(KeyRange.class, KeyRangeFields.class)
      .build();

  /** KeyRange's {@code isFull()} is derived, not a proto field: keep it out of the documents. */
  @JsonIgnoreProperties({"full"})
  private interface KeyRangeFields {}

  private SidecarJson() {}

  static String encode(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (IOException e) {
      throw PointsmanException.internal("cannot encode " + value.getClass().getSimpleName(), e);
    }
  }

  static <T> T decode(String what, String json, Class<T> type) {
    try {
      return MAPPER.readValue(json, type);
    } catch (IOException e) {
      throw PointsmanException.internal(what + " is not a valid " + type.getSimpleName() + " JSON document: "
          + e.getMessage(), e);
    }
  }
}
