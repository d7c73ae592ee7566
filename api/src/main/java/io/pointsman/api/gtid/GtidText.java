package io.pointsman.api.gtid;

/** Keeps error messages about GTID text short and on one line, whatever the input was. */
final class GtidText {
  private static final int MAX_EXCERPT = 120;

  private GtidText() {}

  static String excerpt(String s) {
    if (s == null) {
      return "null";
    }
    String oneLine = s.replaceAll("\\p{Cntrl}", " ");
    return oneLine.length() <= MAX_EXCERPT ? oneLine : oneLine.substring(0, MAX_EXCERPT) + "...";
  }

  /** Parses a non-negative decimal without sign or spaces; -1 when it is not one or overflows. */
  static long parseDecimal(String s) {
    if (s.isEmpty() || s.length() > 19) {
      return -1;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
