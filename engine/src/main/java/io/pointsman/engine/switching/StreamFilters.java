package io.pointsman.engine.switching;

import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Points a stream's filter rules at another shard's key range, as Vitess's stream migrator does
 * when it recreates a stream of a resharded keyspace on the new shards: a rule whose filter is a
 * key range ({@code -80}) gets the new range; a select gets the new range as the key-range argument
 * of its {@code in_keyrange(...)}. Pure.
 */
final class StreamFilters {
  private static final Pattern KEY_RANGE = Pattern.compile("[0-9a-fA-F]*-[0-9a-fA-F]*");
  private static final Pattern IN_KEYRANGE = Pattern.compile("(?i)\\bin_keyrange\\s*\\(");
  private static final Pattern WHERE = Pattern.compile("\\bwhere\\b");
  private static final Pattern CLAUSES_AFTER_WHERE =
      Pattern.compile("\\b(group\\s+by|order\\s+by|limit|having|union)\\b");

  private StreamFilters() {}

  /**
   * Why this rule cannot be pointed at another key range, or empty when it can. Vitess refuses an
   * empty filter and {@code exclude}; pointsman also refuses a select without exactly one
   * {@code in_keyrange} whose last argument is a quoted key range (Vitess would parse the select
   * and add one from the table's first vindex, which pointsman, without a SQL parser, does not).
   */
  static Optional<String> problem(BinlogSource.Rule rule) {
    String filter = rule.filter();
    if (filter.isEmpty()) {
      return Optional.of("rule " + rule.match() + " has no select expression");
    }
    if (rule.isExclude()) {
      return Optional.of("rule " + rule.match() + " is an exclude rule");
    }
    if (KEY_RANGE.matcher(filter).matches()) {
      return Optional.empty();
    }
    if (!filter.stripLeading().toLowerCase(Locale.ROOT).startsWith("select")) {
      return Optional.of("rule " + rule.match() + " has a filter that is neither a key range nor a select: " + filter);
    }
    if (filter.contains("{{")) {
      return Optional.of("rule " + rule.match() + " has '{{' in its filter"); // as Vitess refuses it
    }
    Matcher m = IN_KEYRANGE.matcher(filter);
    int calls = 0;
    while (m.find()) {
      calls++;
    }
    if (calls != 1) {
      return Optional.of("rule " + rule.match() + "'s filter has " + (calls == 0 ? "no" : calls + " calls of")
          + " in_keyrange(...) to point at the new shards, and pointsman cannot add one: " + filter);
    }
    return lastLiteral(filter).isPresent() ? Optional.empty() : Optional.of("rule " + rule.match()
        + "'s in_keyrange(...) does not end with a quoted key range: " + filter);
  }

  /**
   * The rule with an {@code in_keyrange(<column>, '<vindex type>', '<keyRange>')} on the table's
   * primary vindex added to a select that has none, as Vitess adds one before it migrates a stream
   * (a Materialize into a keyspace with one shard has none). Unchanged when the filter is a key range,
   * already has an in_keyrange, or is not a plain select; empty when the select has no place for it
   * that pointsman can find without a SQL parser (GROUP BY, ORDER BY, LIMIT, HAVING, UNION) or the
   * table has no vindex.
   */
  static Optional<BinlogSource.Rule> withKeyRange(BinlogSource.Rule rule, VSchema vschema, String keyRange) {
    String filter = rule.filter();
    if (filter.isEmpty() || rule.isExclude() || KEY_RANGE.matcher(filter).matches()
        || !filter.stripLeading().toLowerCase(Locale.ROOT).startsWith("select") || IN_KEYRANGE.matcher(filter).find()) {
      return Optional.of(rule);
    }
    String bare = unquoted(filter).toLowerCase(Locale.ROOT);
    if (CLAUSES_AFTER_WHERE.matcher(bare).find()) {
      return Optional.empty();
    }
    VSchemaTable table = vschema == null ? null : vschema.tables().get(rule.match());
    if (table == null || table.columnVindexes().isEmpty()) {
      return Optional.empty();
    }
    ColumnVindex primary = table.columnVindexes().get(0);
    String column = primary.column() != null && !primary.column().isEmpty() ? primary.column()
        : primary.columns().isEmpty() ? null : primary.columns().get(0);
    Vindex vindex = vschema.vindexes().get(primary.name());
    if (column == null || vindex == null) {
      return Optional.empty();
    }
    String call = "in_keyrange(" + identifier(column) + ", '" + vindex.type() + "', '" + keyRange + "')";
    Matcher where = WHERE.matcher(bare);
    String added = where.find()
        ? filter.substring(0, where.end()) + "(" + filter.substring(where.end()).strip() + ") and " + call
        : filter.stripTrailing() + " where " + call;
    return Optional.of(rule.withFilter(added));
  }

  /** The filter with every quoted string and identifier blanked, so keywords are found only in the SQL. */
  private static String unquoted(String sql) {
    StringBuilder out = new StringBuilder(sql);
    char quote = 0;
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (quote == 0 && (c == '\'' || c == '"' || c == '`')) {
        quote = c;
      } else if (quote != 0) {
        if (c == '\\' && quote != '`') {
          out.setCharAt(i, ' ');
          if (i + 1 < sql.length()) {
            out.setCharAt(++i, ' ');
          }
          continue;
        }
        if (c == quote) {
          quote = 0;
        } else {
          out.setCharAt(i, ' ');
        }
      }
    }
    return out.toString();
  }

  private static String identifier(String column) {
    return column.matches("[A-Za-z_][A-Za-z0-9_]*") ? column : "`" + column.replace("`", "``") + "`";
  }

  /** The rule with its key range made {@code keyRange} (a shard name form, {@code -} for all); see {@link #problem}. */
  static BinlogSource.Rule retarget(BinlogSource.Rule rule, String keyRange) {
    problem(rule).ifPresent(p -> {
      throw new IllegalArgumentException(p);
    });
    String filter = rule.filter();
    if (KEY_RANGE.matcher(filter).matches()) {
      return rule.withFilter(keyRange);
    }
    int[] literal = lastLiteral(filter).orElseThrow();
    return rule.withFilter(filter.substring(0, literal[0]) + "'" + keyRange + "'" + filter.substring(literal[1]));
  }

  /**
   * Where the last argument of the filter's in_keyrange call is, quotes included: {start, end}; empty
   * when that argument is not a single-quoted string.
   */
  private static Optional<int[]> lastLiteral(String filter) {
    Matcher m = IN_KEYRANGE.matcher(filter);
    if (!m.find()) {
      return Optional.empty();
    }
    int close = -1;
    int lastOpen = -1;
    int lastClose = -1;
    boolean quoted = false;
    int depth = 1;
    for (int i = m.end(); i < filter.length(); i++) {
      char c = filter.charAt(i);
      if (quoted) {
        if (c == '\\') {
          i++;
        } else if (c == '\'') {
          if (i + 1 < filter.length() && filter.charAt(i + 1) == '\'') {
            i++; // a doubled quote inside the string
          } else {
            quoted = false;
            lastClose = i + 1;
          }
        }
        continue;
      }
      if (c == '\'') {
        quoted = true;
        lastOpen = i;
      } else if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close < 0 || lastOpen < 0 || !filter.substring(lastClose, close).isBlank()) {
      return Optional.empty();
    }
    return Optional.of(new int[] {lastOpen, lastClose});
  }
}
