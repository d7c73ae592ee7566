package io.pointsman.engine.topo.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;

/**
 * A key range with lowercase hex bounds; an empty bound is open. {@code -80} is [start, 0x80),
 * {@code 80-} is [0x80, end). Shard names with a '-' are key ranges.
 */
public record KeyRange(String start, String end) {
  public KeyRange {
    start = start == null ? "" : start;
    end = end == null ? "" : end;
    checkHex("key range start", start);
    checkHex("key range end", end);
  }

  public static final KeyRange FULL = new KeyRange("", "");

  /** The key range a shard name stands for; a name without '-' (like {@code 0}) covers everything. */
  public static KeyRange ofShard(String shard) {
    Names.shard(shard);
    int dash = shard.indexOf('-');
    if (dash < 0) {
      return FULL;
    }
    return new KeyRange(shard.substring(0, dash), shard.substring(dash + 1));
  }

  /** Whether a keyspace id (as hex) falls in this range. */
  public boolean contains(String keyspaceIdHex) {
    boolean afterStart = start.isEmpty() || Names.compareHexBounds(keyspaceIdHex, start) >= 0;
    boolean beforeEnd = end.isEmpty() || Names.compareHexBounds(keyspaceIdHex, end) < 0;
    return afterStart && beforeEnd;
  }

  /** Whether a keyspace id falls in this range. */
  public boolean contains(byte[] keyspaceId) {
    return contains(hex(keyspaceId));
  }

  @JsonIgnore // derived, not a field: Temporal's and the topology's JSON must not carry it
  public boolean isFull() {
    return start.isEmpty() && end.isEmpty();
  }

  /** The shard-name form, {@code -80}, {@code 80-c0}; {@code -} for the full range. */
  public String shardName() {
    return start + "-" + end;
  }

  public static String hex(byte[] bytes) {
    StringBuilder sb = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) {
      sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return sb.toString();
  }

  static void checkHex(String what, String v) {
    if (!v.matches("[0-9a-f]*")) {
      throw PointsmanException.invalidArgument(what + " '" + v + "' is not lowercase hex");
    }
  }

  @Override
  public String toString() {
    return shardName();
  }
}
