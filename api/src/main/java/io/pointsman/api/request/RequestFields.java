package io.pointsman.api.request;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.names.Names;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Reads one JSON object field by field with messages that name the field, and refuses fields
 * nobody asked for. Requests are decoded through it whether they come from the Temporal UI (one
 * hand-typed json/plain payload), the CLI or Java.
 */
final class RequestFields {
  private final String requestName;
  private final JsonNode node;
  private final Set<String> known = new LinkedHashSet<>();
  /** Required fields found missing: reported by {@link #rejectUnknown}, after a misspelling that explains them. */
  private final List<String> missing = new ArrayList<>();

  RequestFields(String requestName, JsonNode node) {
    this.requestName = requestName;
    if (node == null || node.isNull() || node.isMissingNode()) {
      throw new InvalidRequestException(requestName + " input is missing: expected one JSON object");
    }
    if (!node.isObject()) {
      throw new InvalidRequestException(
          requestName + " input must be one JSON object, got " + node.getNodeType().toString().toLowerCase(Locale.ROOT));
    }
    this.node = node;
  }

  /** {@code workflow}, which every request names: required, a valid workflow name. */
  String workflow() {
    return requiredName("workflow", v -> name("workflow", v));
  }

  /** {@code targetKeyspace}, which every request names: required, a valid keyspace name. */
  String targetKeyspace() {
    return requiredName("targetKeyspace", v -> name("keyspace", v));
  }

  String requiredName(String field, UnaryOperator<String> validator) {
    JsonNode v = take(field);
    if (v == null || v.isNull()) {
      // a misspelled field is the likelier mistake, and the unknown-field message names it: so the
      // missing field is reported by rejectUnknown, once every known field has been read
      missing.add(field);
      return null;
    }
    if (!v.isTextual()) {
      throw fail(field, "must be a string");
    }
    return validate(field, v.asText(), validator);
  }

  /** An enum field by constant name (case-insensitive), or its default when absent. */
  <E extends Enum<E>> E enumValue(String field, Class<E> type, E defaultValue) {
    JsonNode v = take(field);
    if (v == null || v.isNull()) {
      return defaultValue;
    }
    for (E e : type.getEnumConstants()) {
      if (v.isTextual() && e.name().equalsIgnoreCase(v.asText())) {
        return e;
      }
    }
    throw fail(field, "must be one of " + java.util.Arrays.toString(type.getEnumConstants()) + ", got "
        + clip(v.toString()));
  }

  boolean bool(String field, boolean defaultValue) {
    JsonNode v = take(field);
    if (v == null || v.isNull()) {
      return defaultValue;
    }
    if (!v.isBoolean()) {
      throw fail(field, "must be true or false, got " + clip(v.toString()));
    }
    return v.asBoolean();
  }

  /** A number field, or its default when absent; present, it must be a JSON number (not a string). */
  double number(String field, double defaultValue) {
    JsonNode v = take(field);
    if (v == null || v.isNull()) {
      return defaultValue;
    }
    if (!v.isNumber()) {
      throw fail(field, "must be a number, got " + clip(v.toString()));
    }
    return v.asDouble();
  }

  /**
   * A duration field, or its default when absent; present, it must not be negative and must obey
   * {@code rule} (one of {@link TimeLimitRules}), which answers the problem or nothing.
   */
  Duration duration(String field, Duration defaultValue, Function<Duration, Optional<String>> rule) {
    JsonNode v = take(field);
    if (v == null || v.isNull()) {
      return defaultValue;
    }
    if (!v.isTextual()) {
      throw fail(field, "must be a duration string such as \"30s\" or \"2m\", got " + clip(v.toString()));
    }
    Duration d = GoDurations.parseOrNull(v.asText());
    if (d == null) {
      throw fail(field, "'" + clip(v.asText()) + "' is not a duration (use e.g. 30s, 2m, 1h30m)");
    }
    if (d.isNegative()) {
      throw fail(field, "must not be negative");
    }
    Optional<String> problem = rule.apply(d);
    if (problem.isPresent()) {
      throw fail(field, problem.get());
    }
    return d;
  }

  /** A list of strings, or one comma-separated string, each turned into a value by {@code parser}. */
  <T> List<T> stringList(String field, List<T> defaultValue, Function<String, T> parser) {
    JsonNode v = take(field);
    if (v == null || v.isNull()) {
      return defaultValue;
    }
    List<T> out = new ArrayList<>();
    if (v.isTextual()) {
      // vtctldclient takes comma-separated lists; accept the same in JSON for convenience
      for (String s : v.asText().split(",")) {
        if (!s.isBlank()) {
          out.add(validate(field, s.trim(), parser));
        }
      }
      return List.copyOf(out);
    }
    if (!v.isArray()) {
      throw fail(field, "must be a list of strings, got " + v.getNodeType().toString().toLowerCase(Locale.ROOT));
    }
    for (JsonNode e : v) {
      if (!e.isTextual()) {
        throw fail(field, "must be a list of strings, found " + clip(e.toString()));
      }
      out.add(validate(field, e.asText(), parser));
    }
    return List.copyOf(out);
  }

  /**
   * Refuses fields nobody read, naming them and the known ones, then required fields that were
   * missing; call it after every field was read and before any value is used (a missing required
   * field was read as null). An unknown field is most likely a typo, never ignored.
   */
  void rejectUnknown() {
    Set<String> unknown = new TreeSet<>();
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String n = names.next();
      if (!known.contains(n)) {
        unknown.add(n);
      }
    }
    if (!unknown.isEmpty()) {
      throw new InvalidRequestException(requestName + " input has unknown field" + (unknown.size() > 1 ? "s " : " ")
          + String.join(", ", unknown.stream().map(RequestFields::clip).toList())
          + (missing.isEmpty() ? "" : " (and lacks the required " + String.join(", ", missing) + ")")
          + "; known fields are " + String.join(", ", known));
    }
    if (!missing.isEmpty()) {
      throw fail(missing.get(0), "is required");
    }
  }

  private JsonNode take(String field) {
    known.add(field);
    return node.get(field);
  }

  private <T> T validate(String field, String value, Function<String, T> parser) {
    try {
      return parser.apply(value);
    } catch (PointsmanException | InvalidRequestException e) {
      throw fail(field, e.getMessage());
    }
  }

  InvalidRequestException fail(String field, String problem) {
    return new InvalidRequestException(requestName + " input field '" + field + "' " + problem);
  }

  static String clip(String s) {
    String p = s.length() > 80 ? s.substring(0, 80) + "..." : s;
    return p.replaceAll("\\p{Cntrl}", "?");
  }

  /**
   * One of the tablet types traffic actions take (PRIMARY, REPLICA, RDONLY), by name or alias
   * ({@link TabletType#lookup}).
   */
  static TabletType trafficTabletType(String v) {
    return TabletType.lookup(v).filter(TabletType.SWITCHED::contains).orElseThrow(() ->
        new InvalidRequestException("'" + clip(v) + "' is not one of PRIMARY, REPLICA, RDONLY"));
  }

  static String name(String kind, String value) {
    return switch (kind) {
      case "keyspace" -> Names.keyspace(value);
      case "workflow" -> Names.workflow(value);
      case "cell" -> Names.cell(value);
      default -> throw new IllegalArgumentException(kind);
    };
  }
}
