package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which source tables a stream carries and which of their rows, decided from the stream's filter
 * rules the way Vitess's vstreamer does: the first rule that matches a table wins; a {@code /regexp}
 * rule takes the whole table, or with a key range as its filter only the rows whose keyspace id
 * (primary vindex of the source keyspace's VSchema) falls in it; a table-name rule carries a
 * {@code select * ... where in_keyrange(...)}.
 */
final class StreamFilter {
  /** Rows of one table pass when every condition holds. */
  record TableRule(String table, List<HashCondition> conditions) {
    boolean allRows() {
      return conditions.isEmpty();
    }
  }

  /** The keyspace id ({@code hash} vindex) of {@code column} must fall in {@code range}. */
  record HashCondition(String column, KeyRange range) {}

  private static final String HASH = "hash";

  private final BinlogSource source;
  private final Function<String, Optional<VSchema>> vschemas;
  private final List<CompiledRule> rules;
  private final Map<String, Optional<TableRule>> byTable = new ConcurrentHashMap<>();

  private record CompiledRule(Pattern regex, String table, String keyRange, FilterParser.Select select, boolean exclude) {}

  /**
   * Compiles every rule at once, so an undecodable filter stops the stream before it copies
   * anything. {@code vschemas} reads a keyspace's VSchema (the source's, for primary vindexes).
   */
  StreamFilter(BinlogSource source, Function<String, Optional<VSchema>> vschemas) {
    this.source = source;
    this.vschemas = vschemas;
    List<CompiledRule> compiled = new ArrayList<>();
    for (BinlogSource.Rule r : source.filter().rules()) {
      compiled.add(compile(r));
    }
    this.rules = List.copyOf(compiled);
  }

  /** How the table streams, or empty when no rule selects it (or an {@code exclude} rule drops it). */
  Optional<TableRule> forTable(String table) {
    Optional<TableRule> cached = byTable.get(table);
    if (cached != null) {
      return cached;
    }
    Optional<TableRule> decided = decide(table);
    byTable.put(table, decided);
    return decided;
  }

  private Optional<TableRule> decide(String table) {
    for (CompiledRule r : rules) {
      if (r.regex() != null) {
        if (!r.regex().matcher(table).find()) {
          continue;
        }
        if (r.keyRange() == null) {
          return Optional.of(new TableRule(table, List.of()));
        }
        return Optional.of(new TableRule(table, List.of(new HashCondition(primaryVindexColumn(table), parseRange(r.keyRange())))));
      }
      if (!r.table().equals(table)) {
        continue;
      }
      if (r.exclude()) {
        return Optional.empty();
      }
      if (r.select() == null) {
        return Optional.of(new TableRule(table, List.of()));
      }
      List<HashCondition> conditions = new ArrayList<>();
      for (FilterParser.InKeyRange c : r.select().conditions()) {
        KeyRange range = parseRange(c.keyRange());
        if (c.column() == null) {
          conditions.add(new HashCondition(primaryVindexColumn(table), range));
        } else {
          requireHash(vindexType(c.vindex()), c.vindex());
          conditions.add(new HashCondition(c.column(), range));
        }
      }
      return Optional.of(new TableRule(table, List.copyOf(conditions)));
    }
    return Optional.empty();
  }

  private CompiledRule compile(BinlogSource.Rule r) {
    String match = r.match() == null ? "" : r.match();
    String filter = r.filter() == null ? "" : r.filter().trim();
    if (match.startsWith("/")) {
      String expr = trimSlashes(match);
      try {
        Pattern p = Pattern.compile(expr);
        if (!filter.isEmpty()) {
          parseRange(filter);
        }
        return new CompiledRule(p, null, filter.isEmpty() ? null : filter, null, false);
      } catch (PatternSyntaxException e) {
        throw PointsmanException.invalidArgument("rule match '" + match + "' is not a regular expression: " + e.getDescription());
      }
    }
    if (match.isEmpty()) {
      throw PointsmanException.invalidArgument("a filter rule has an empty match");
    }
    if (filter.isEmpty()) {
      return new CompiledRule(null, match, null, null, false);
    }
    if (filter.equalsIgnoreCase("exclude")) {
      // An exclude rule carries a marker instead of a select; it drops the table from the stream.
      return new CompiledRule(null, match, null, null, true);
    }
    FilterParser.Select select = FilterParser.parse(filter);
    if (!select.table().equals(match)) {
      throw PointsmanException.invalidArgument("filter \"" + filter + "\" selects from " + select.table()
          + " but its rule matches " + match);
    }
    for (FilterParser.InKeyRange c : select.conditions()) {
      parseRange(c.keyRange());
    }
    return new CompiledRule(null, match, null, select, false);
  }

  private String primaryVindexColumn(String table) {
    VSchema vs = vschemas.apply(source.keyspace()).orElseThrow(() -> PointsmanException.invalidArgument(
        "keyspace " + source.keyspace() + " has no VSchema to find the primary vindex of " + table));
    VSchemaTable t = vs.tables().get(table);
    if (t == null || t.columnVindexes().isEmpty()) {
      throw PointsmanException.invalidArgument("table " + table + " has no primary vindex in the VSchema of " + source.keyspace());
    }
    ColumnVindex cv = t.columnVindexes().get(0);
    String column = cv.column() != null && !cv.column().isEmpty() ? cv.column()
        : cv.columns().size() == 1 ? cv.columns().get(0) : null;
    if (column == null) {
      throw PointsmanException.invalidArgument("the primary vindex of " + table + " is not on one column");
    }
    Vindex v = vs.vindexes().get(cv.name());
    requireHash(v == null ? null : v.type(), cv.name());
    return column;
  }

  /** {@code ks.name} names a vindex of that keyspace; a bare name one of the source keyspace or a vindex type. */
  private String vindexType(String name) {
    int dot = name.indexOf('.');
    if (dot > 0) {
      String ks = name.substring(0, dot);
      Vindex v = vschemas.apply(ks).map(vs -> vs.vindexes().get(name.substring(dot + 1))).orElse(null);
      if (v == null) {
        throw PointsmanException.invalidArgument("vindex " + name + " is not in the VSchema of keyspace " + ks);
      }
      return v.type();
    }
    return vschemas.apply(source.keyspace()).map(vs -> vs.vindexes().get(name)).map(Vindex::type).orElse(name);
  }

  private static void requireHash(String type, String name) {
    if (!HASH.equals(type)) {
      throw PointsmanException.invalidArgument("vindex " + name + " is of type " + type
          + "; the sandbox stream runner computes only the hash vindex");
    }
  }

  /** Vitess's sharding spec for one range: {@code -80}, {@code 40-80}, {@code 80-}, {@code -} for all. */
  static KeyRange parseRange(String spec) {
    String s = spec.trim().toLowerCase(Locale.ROOT);
    if (s.equals("-")) {
      return KeyRange.FULL;
    }
    int dash = s.indexOf('-');
    if (dash < 0 || dash != s.lastIndexOf('-')) {
      throw PointsmanException.invalidArgument("'" + spec + "' is not a key range like -80, 40-80 or 80-");
    }
    try {
      KeyRange kr = new KeyRange(s.substring(0, dash), s.substring(dash + 1));
      if (!kr.start().isEmpty() && !kr.end().isEmpty() && Names.compareHexBounds(kr.start(), kr.end()) >= 0) {
        throw PointsmanException.invalidArgument("key range '" + spec + "' starts at or after its end");
      }
      return kr;
    } catch (PointsmanException e) {
      throw PointsmanException.invalidArgument("'" + spec + "' is not a key range: " + e.getMessage());
    }
  }

  private static String trimSlashes(String match) {
    int b = 0;
    int e = match.length();
    while (b < e && match.charAt(b) == '/') {
      b++;
    }
    while (e > b && match.charAt(e - 1) == '/') {
      e--;
    }
    return match.substring(b, e);
  }
}
