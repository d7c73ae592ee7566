package io.pointsman.sandbox.streams;

import io.pointsman.errors.PointsmanException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;

/**
 * Vitess's {@code hash} vindex: a keyspace id is the value's 8 big-endian bytes encrypted with
 * single DES (ECB, no padding) under an all-zero key. Private stand-in until
 * {@code io.pointsman.sandbox.cluster.HashVindex} lands; then this class goes.
 */
final class HashVindex {
  private static final SecretKeySpec ZERO_KEY = new SecretKeySpec(new byte[8], "DES");
  private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);
  private static final BigInteger MIN_LONG = BigInteger.valueOf(Long.MIN_VALUE);
  // Cipher instances are not thread-safe and every stream worker filters rows on its own thread.
  private static final ThreadLocal<Cipher> CIPHER = ThreadLocal.withInitial(HashVindex::newCipher);

  private HashVindex() {}

  /** The keyspace id of a 64-bit value; negative values hash as their unsigned bit pattern, as in Vitess. */
  static byte[] keyspaceId(long value) {
    byte[] plain = ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    try {
      return CIPHER.get().doFinal(plain);
    } catch (GeneralSecurityException e) {
      throw PointsmanException.internal("DES of a single block failed", e);
    }
  }

  /**
   * The keyspace id of a column value as JDBC or the binlog hands it over: an integer type, or the
   * decimal text of one (bytes or string). NULL and non-numbers have no keyspace id, which Vitess
   * reports as an error of the stream rather than dropping the row silently.
   */
  static byte[] keyspaceIdOf(Object value) {
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return keyspaceId(((Number) value).longValue());
    }
    if (value instanceof BigInteger b) {
      return keyspaceId(toUint64(b, value));
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
      return keyspaceId(toUint64(new BigInteger(text.trim()), value));
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

  private static Cipher newCipher() {
    try {
      Cipher c = Cipher.getInstance("DES/ECB/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, ZERO_KEY);
      return c;
    } catch (GeneralSecurityException e) {
      throw PointsmanException.internal("this JVM has no DES/ECB/NoPadding cipher", e);
    }
  }
}
