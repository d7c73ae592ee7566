package io.pointsman.engine.topo;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.UnfinishedCleanup;
import java.io.IOException;
import java.util.Set;

/**
 * Records pointsman keeps for itself beside Vitess's topology, under keys no Vitess component reads
 * ({@code <global root>/internal/pointsman_*}): they have no Vitess message, so they are JSON, which
 * an operator can read with etcdctl. Everything else the store keeps is Vitess's own protobuf.
 */
final class OwnRecords {
  private static final Set<Class<?>> TYPES = Set.of(UnfinishedCleanup.class);
  private static final ObjectMapper JSON = JsonMapper.builder()
      // a newer pointsman may add fields; an older one still reads what it knows
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .build();

  private OwnRecords() {}

  static boolean owns(Class<?> type) {
    return TYPES.contains(type);
  }

  static String format(Class<?> type) {
    return "pointsman " + type.getSimpleName() + " JSON document";
  }

  static byte[] encode(Object value) {
    try {
      return JSON.writeValueAsBytes(value);
    } catch (IOException e) {
      throw PointsmanException.internal("cannot encode " + value.getClass().getSimpleName(), e);
    }
  }

  static <T> T decode(String key, byte[] bytes, Class<T> type) {
    try {
      return JSON.readValue(bytes, type);
    } catch (IOException e) {
      throw new PointsmanException(ErrorCode.INTERNAL,
          "record at " + key + " is not a valid " + format(type) + ": " + e.getMessage(), e);
    }
  }
}
