package io.pointsman.sandbox.streams;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.pointsman.errors.PointsmanException;
import io.pointsman.topo.model.KeyRange;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * The {@code source} column of a stream: Vitess's binlogdata.BinlogSource as JSON with proto field
 * names ({@code key_range}, {@code on_ddl}); the camelCase protojson spellings are accepted too.
 */
record BinlogSource(
    @JsonProperty("keyspace") String keyspace,
    @JsonProperty("shard") String shard,
    @JsonProperty("key_range") @JsonAlias("keyRange") KeyRange keyRange,
    @JsonProperty("tables") List<String> tables,
    @JsonProperty("filter") Filter filter,
    @JsonProperty("on_ddl") @JsonAlias("onDdl") String onDdl) {

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      // BinlogSource has more fields (tablet_type, external_mysql, time zones) that the runner ignores.
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .build();

  BinlogSource {
    tables = tables == null ? List.of() : List.copyOf(tables);
    filter = filter == null ? new Filter(List.of()) : filter;
    onDdl = onDdlName(onDdl);
  }

  /** binlogdata.OnDDLAction by name; protojson may also write the enum number. */
  private static String onDdlName(String value) {
    if (value == null || value.isEmpty()) {
      return "IGNORE";
    }
    return switch (value) {
      case "0" -> "IGNORE";
      case "1" -> "STOP";
      case "2" -> "EXEC";
      case "3" -> "EXEC_IGNORE";
      default -> value.toUpperCase(Locale.ROOT);
    };
  }

  /** binlogdata.Filter: the first rule whose match fits a table decides how it streams. */
  record Filter(@JsonProperty("rules") List<Rule> rules) {
    Filter {
      rules = rules == null ? List.of() : List.copyOf(rules);
    }
  }

  /** binlogdata.Rule: {@code match} is a table name or {@code /regexp}; {@code filter} a select or key range. */
  record Rule(@JsonProperty("match") String match, @JsonProperty("filter") String filter) {
    Rule {
      match = match == null ? "" : match;
      filter = filter == null ? "" : filter;
    }
  }

  /** Decodes the column; a malformed value is a permanent error of the stream. */
  static BinlogSource parse(String json) {
    if (json == null || json.isBlank()) {
      throw PointsmanException.invalidArgument("the stream has an empty source");
    }
    BinlogSource s;
    try {
      s = MAPPER.readValue(json, BinlogSource.class);
    } catch (IOException e) {
      throw PointsmanException.invalidArgument("the stream source is not a BinlogSource JSON document: " + e.getMessage());
    } catch (PointsmanException e) {
      throw PointsmanException.invalidArgument("the stream source is invalid: " + e.getMessage());
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
