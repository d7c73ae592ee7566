package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.sandbox.cluster.HashVindex;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/**
 * Keyspace ids of column values as the runner holds them, by Vitess's {@code hash} vindex: an
 * integer (signed values hash as their 64-bit pattern, as Vitess does for signed columns), or
 * the decimal text of one (the copy reads every column as text-protocol bytes).
 */
final class KeyspaceIds {
  private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);
  private static final BigInteger MIN_LONG = BigInteger.valueOf(Long.MIN_VALUE);

  private KeyspaceIds() {}

  /**
   * The keyspace id of a value. NULL and non-numbers have none, which Vitess reports as an error
   * of the stream rather than dropping the row silently.
   */
  static byte[] of(Object value) {
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return HashVindex.keyspaceId(((Number) value).longValue());
    }
    if (value instanceof BigInteger b) {
      return HashVindex.keyspaceId(toUint64(b, value));
    }
    String text;
    if (value instanceof byte[] bytes) {
      text = new String(bytes, StandardCharsets.US_ASCII);
    } else if (value instanceof String s) {
      text = s;
    } else {
      throw PointsmanException.invalidArgument("cannot map " + describe(value) + " to a keyspace id with the hash vindex");
    }
    try {
      return HashVindex.keyspaceId(toUint64(new BigInteger(text.trim()), value));
    } catch (NumberFormatException e) {
      throw PointsmanException.invalidArgument("cannot map '" + text + "' to a keyspace id with the hash vindex");
    }
  }

  private static long toUint64(BigInteger b, Object original) {
    if (b.compareTo(MIN_LONG) < 0 || b.compareTo(TWO_TO_64) >= 0) {
      throw PointsmanException.invalidArgument(
          "cannot map " + describe(original) + " to a keyspace id: outside the 64-bit range");
    }
    return b.longValue();
  }

  private static String describe(Object value) {
    return value == null ? "NULL" : value.getClass().getSimpleName() + " value";
  }
}
