package io.pointsman.sandbox.streams;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.mysql.BinlogSource;

/**
 * Reads the {@code source} column into the shared {@link BinlogSource}: JSON with Vitess's proto
 * field names, as io.pointsman.engine.mysql writes it. A malformed value is a permanent error of the
 * stream, reported in its row, never a crash of the runner.
 */
final class SourceCodec {
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      // BinlogSource carries fields this runner ignores, and newer writers may add more.
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL)
      .build();

  private SourceCodec() {}

  static BinlogSource decode(String json) {
    if (json == null || json.isBlank()) {
      throw PointsmanException.invalidArgument("the stream has an empty source");
    }
    BinlogSource s;
    try {
      s = MAPPER.readValue(json, BinlogSource.class);
    } catch (JsonProcessingException e) {
      throw PointsmanException.invalidArgument("the stream source is not a BinlogSource JSON document: "
          + e.getOriginalMessage());
    }
    if (s.keyspace() == null || s.keyspace().isEmpty() || s.shard() == null || s.shard().isEmpty()) {
      throw PointsmanException.invalidArgument("the stream source names no keyspace or shard");
    }
    if (s.filter().rules().isEmpty()) {
      throw PointsmanException.invalidArgument("the stream source has no filter rules");
    }
    return s;
  }
}
