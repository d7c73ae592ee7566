package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.PointsmanException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses the one shape of rule filter MoveTables writes:
 * {@code select * from t [where in_keyrange(col, 'vindex', 'range') [and ...]]}, also with the
 * one-argument {@code in_keyrange('range')} that uses the table's primary vindex. Anything else is
 * refused with a message naming the filter, rather than streamed unfiltered.
 */
final class FilterParser {
  /** One {@code in_keyrange} condition; column and vindex are absent in the one-argument form. */
  record InKeyRange(String column, String vindex, String keyRange) {}

  /** The parsed select: its table and its conditions, all of which must hold. */
  record Select(String table, List<InKeyRange> conditions) {}

  private final String sql;
  private final List<String> tokens;
  private int at;

  private FilterParser(String sql) {
    this.sql = sql;
    this.tokens = tokenize(sql);
  }

  static Select parse(String sql) {
    return new FilterParser(sql).select();
  }

  private Select select() {
    keyword("select");
    expect("*");
    keyword("from");
    String table = identifier();
    List<InKeyRange> conditions = new ArrayList<>();
    if (peekKeyword("where")) {
      keyword("where");
      conditions.add(inKeyRange());
      while (peekKeyword("and")) {
        keyword("and");
        conditions.add(inKeyRange());
      }
    }
    if (at < tokens.size()) {
      throw unsupported("unexpected '" + tokens.get(at) + "'");
    }
    return new Select(table, List.copyOf(conditions));
  }

  private InKeyRange inKeyRange() {
    keyword("in_keyrange");
    expect("(");
    if (peekString()) {
      String kr = string();
      expect(")");
      return new InKeyRange(null, null, kr);
    }
    String column = identifier();
    expect(",");
    String vindex = string();
    expect(",");
    String kr = string();
    expect(")");
    return new InKeyRange(column, vindex, kr);
  }

  private void keyword(String word) {
    String t = next();
    if (!t.toLowerCase(Locale.ROOT).equals(word)) {
      throw unsupported("expected " + word + " but found '" + t + "'");
    }
  }

  private boolean peekKeyword(String word) {
    return at < tokens.size() && tokens.get(at).toLowerCase(Locale.ROOT).equals(word);
  }

  private boolean peekString() {
    return at < tokens.size() && tokens.get(at).startsWith("'");
  }

  private void expect(String punct) {
    String t = next();
    if (!t.equals(punct)) {
      throw unsupported("expected '" + punct + "' but found '" + t + "'");
    }
  }

  private String identifier() {
    String t = next();
    if (t.startsWith("`")) {
      return t.substring(1, t.length() - 1);
    }
    if (!Character.isLetterOrDigit(t.charAt(0)) && t.charAt(0) != '_') {
      throw unsupported("expected a name but found '" + t + "'");
    }
    return t;
  }

  private String string() {
    String t = next();
    if (!t.startsWith("'")) {
      throw unsupported("expected a quoted string but found '" + t + "'");
    }
    return t.substring(1, t.length() - 1);
  }

  private String next() {
    if (at >= tokens.size()) {
      throw unsupported("it ends too early");
    }
    return tokens.get(at++);
  }

  private PointsmanException unsupported(String why) {
    return PointsmanException.invalidArgument("unsupported filter \"" + sql + "\": " + why
        + "; supported: select * from <table> [where in_keyrange(...) [and ...]]");
  }

  /** Words, `quoted names`, 'strings' (kept with their opening quote) and single-character punctuation. */
  private List<String> tokenize(String s) {
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '\'' || c == '`') {
        StringBuilder sb = new StringBuilder().append(c);
        int j = i + 1;
        while (true) {
          if (j >= s.length()) {
            throw unsupported("a quote is not closed");
          }
          char d = s.charAt(j);
          if (d == c && j + 1 < s.length() && s.charAt(j + 1) == c) {
            sb.append(c);
            j += 2;
          } else if (d == c) {
            break;
          } else if (d == '\\' && c == '\'' && j + 1 < s.length()) {
            sb.append(s.charAt(j + 1));
            j += 2;
          } else {
            sb.append(d);
            j++;
          }
        }
        out.add(sb.append(c).toString());
        i = j + 1;
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        int j = i;
        while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == '$')) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      } else if ("*(),".indexOf(c) >= 0) {
        out.add(String.valueOf(c));
        i++;
      } else {
        throw unsupported("unexpected character '" + c + "'");
      }
    }
    return out;
  }
}
