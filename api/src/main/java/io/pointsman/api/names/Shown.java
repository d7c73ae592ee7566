package io.pointsman.api.names;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Text from outside pointsman (a lock value another tool wrote, a name in an etcd record) made safe
 * to show in a message, a log line, the progress query or the CLI: on one line, with nothing a
 * terminal acts on, and bounded. Control characters (C0, DEL, C1, which hold the ANSI escape and
 * CSI), the bidirectional overrides that reorder what a reader sees, line and paragraph separators
 * and unpaired surrogates are written as {@code \\uXXXX}; anything longer than the limit is cut and
 * says how much was left out. Markup such as HTML is shown as the text it is: whatever renders it
 * (the Temporal UI) escapes it.
 */
public final class Shown {
  /** Room for any real name or lock field; a 1 MB value still makes a short line. */
  public static final int DEFAULT_MAX = 200;
  /** Up to this many items, a list is shown whole by {@link #list}. */
  public static final int LIST_IN_FULL = 10;

  private Shown() {}

  /** {@code s} escaped and cut at {@link #DEFAULT_MAX} characters; {@code null} shows as {@code null}. */
  public static String text(String s) {
    return text(s, DEFAULT_MAX);
  }

  /** {@code s} escaped, and cut after {@code max} characters of the input. */
  public static String text(String s, int max) {
    if (s == null) {
      return "null";
    }
    StringBuilder sb = new StringBuilder(Math.min(s.length(), max) + 16);
    int i = 0;
    while (i < s.length() && i < max) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        if (i + 1 >= max) {
          break; // never split a pair: half of one is an unpaired surrogate
        }
        sb.append(c).append(s.charAt(i + 1));
        i += 2;
        continue;
      }
      if (unsafe(c)) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
      i++;
    }
    if (i < s.length()) {
      sb.append("...(").append(s.length() - i).append(" more characters)");
    }
    return sb.toString();
  }

  private static boolean unsafe(char c) {
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) // C0, DEL, C1
        || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f
        || c == 0x061c // bidirectional marks and overrides
        || c == 0x2028 || c == 0x2029 // line and paragraph separators
        || Character.isSurrogate(c) // a pair was handled above: this one is alone
        || c == 0xfeff;
  }

  /**
   * A list for a log line or a message: whole up to {@link #LIST_IN_FULL} items, else its first five,
   * its last and its size, as in {@code [t0001, t0002, t0003, t0004, t0005, ..., t1000] (1000 in all)}.
   * A MoveTables of a thousand tables made every line that named its tables thousands of characters.
   */
  public static String list(Collection<?> items) {
    return "[" + String.join(", ", shortened(items)) + "]" + size(items);
  }

  /** {@link #list} without its brackets, for a sentence: {@code corder, customer}. */
  public static String joined(Collection<?> items) {
    return String.join(", ", shortened(items)) + size(items);
  }

  private static List<String> shortened(Collection<?> items) {
    List<String> shown = new ArrayList<>();
    Object last = null;
    for (Object item : items) {
      if (shown.size() < 5 || items.size() <= LIST_IN_FULL) {
        shown.add(String.valueOf(item));
      }
      last = item;
    }
    if (items.size() > LIST_IN_FULL) {
      shown.add("...");
      shown.add(String.valueOf(last));
    }
    return shown;
  }

  private static String size(Collection<?> items) {
    return items.size() > LIST_IN_FULL ? " (" + items.size() + " in all)" : "";
  }
}
