package io.pointsman.engine.topo;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;

/**
 * The one place that decides how records are encoded: JSON with Vitess's proto field names
 * (snake_case), empty fields left out as protojson does. A protobuf codec could replace this class
 * without touching the store.
 */
public final class TopoCodec {
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .serializationInclusion(JsonInclude.Include.NON_EMPTY)
      // Records written by newer Vitess or pointsman versions may carry fields we do not know.
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .build();

  private TopoCodec() {}

  public static byte[] encode(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (IOException e) {
      throw PointsmanException.internal("cannot encode " + value.getClass().getSimpleName(), e);
    }
  }

  public static <T> T decode(String key, byte[] bytes, Class<T> type) {
    try {
      return MAPPER.readValue(bytes, type);
    } catch (IOException e) {
      throw new PointsmanException(ErrorCode.INTERNAL,
          "record at " + key + " is not a valid " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  public static ObjectMapper mapper() {
    return MAPPER;
  }
}
