package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.model.KeyRange;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;

/**
 * Vitess's {@code hash} vindex: the keyspace id of a value is the DES encryption (ECB, no padding,
 * an all-zero 8-byte key) of the value as an 8-byte big-endian unsigned integer. Signed values map
 * through their two's complement, as Vitess does for signed columns, so {@code -1} and
 * {@code 18446744073709551615} share a keyspace id. Thread-safe.
 */
public final class HashVindex {
  /** The vindex type name in a VSchema. */
  public static final String TYPE = "hash";

  private static final int ID_LENGTH = 8;
  // Cipher instances are not thread-safe; one per thread keeps the router's hot path allocation-free.
  private static final ThreadLocal<Cipher> ENCRYPT = ThreadLocal.withInitial(() -> cipher(Cipher.ENCRYPT_MODE));
  private static final ThreadLocal<Cipher> DECRYPT = ThreadLocal.withInitial(() -> cipher(Cipher.DECRYPT_MODE));

  private HashVindex() {}

  /** The 8-byte keyspace id of a sharding-key value. */
  public static byte[] keyspaceId(long value) {
    byte[] plain = ByteBuffer.allocate(ID_LENGTH).putLong(value).array();
    return run(ENCRYPT.get(), plain);
  }

  /** The keyspace id as lowercase hex, the form key ranges and shard names use. */
  public static String keyspaceIdHex(long value) {
    return KeyRange.hex(keyspaceId(value));
  }

  /** Whether the value's keyspace id falls in the key range (that is, whether that shard holds it). */
  public static boolean inKeyRange(long value, KeyRange range) {
    return range.contains(keyspaceId(value));
  }

  /** The value a keyspace id was computed from (the vindex is reversible), as unsigned 64-bit bits. */
  public static long reverse(byte[] keyspaceId) {
    if (keyspaceId == null || keyspaceId.length != ID_LENGTH) {
      throw PointsmanException.invalidArgument("a hash keyspace id has 8 bytes, not "
          + (keyspaceId == null ? "none" : keyspaceId.length));
    }
    return ByteBuffer.wrap(run(DECRYPT.get(), keyspaceId)).getLong();
  }

  private static byte[] run(Cipher cipher, byte[] input) {
    try {
      return cipher.doFinal(input);
    } catch (GeneralSecurityException e) {
      throw PointsmanException.internal("DES failed on an 8-byte block", e);
    }
  }

  private static Cipher cipher(int mode) {
    try {
      Cipher c = Cipher.getInstance("DES/ECB/NoPadding");
      c.init(mode, new SecretKeySpec(new byte[ID_LENGTH], "DES"));
      return c;
    } catch (GeneralSecurityException e) {
      throw PointsmanException.internal("this JVM offers no DES/ECB/NoPadding cipher", e);
    }
  }
}
