package io.pointsman.sandbox.streams;

import com.github.shyiko.mysql.binlog.event.deserialization.json.JsonBinary;
import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.BitSet;

/**
 * Turns a value of a binlog row image, as the binlog client decodes it in its raw modes (strings as
 * bytes, temporal values as microseconds, integers as signed Java numbers), into a value JDBC binds
 * back into the same column. Row images carry no signedness, so the target column says how to read
 * an integer; strings stay bytes so no character set conversion can alter them.
 */
final class BinlogValues {
  /** The decoder's marker for a zero date ({@code 0000-00-00}): INVALID_DATE_AND_TIME_AS_MIN_VALUE. */
  static final long ZERO_DATE = Long.MIN_VALUE;

  private static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");
  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd");
  private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

  private BinlogValues() {}

  static Object toJdbc(Object raw, TableSchema.Column column) {
    if (raw == null) {
      return null;
    }
    try {
      return convert(raw, column);
    } catch (ClassCastException e) {
      throw PointsmanException.invalidArgument("column " + column.name() + " (" + column.dataType()
          + ") got a binlog value of type " + raw.getClass().getSimpleName() + "; do source and target schemas differ?");
    }
  }

  private static Object convert(Object raw, TableSchema.Column column) {
    switch (column.dataType()) {
      case "tinyint":
        return integer(raw, column.unsigned(), 0xFFL);
      case "smallint":
        return integer(raw, column.unsigned(), 0xFFFFL);
      case "mediumint":
        return integer(raw, column.unsigned(), 0xFFFFFFL);
      case "int":
      case "integer":
        return integer(raw, column.unsigned(), 0xFFFFFFFFL);
      case "bigint": {
        long v = ((Number) raw).longValue();
        return column.unsigned() && v < 0 ? BigInteger.valueOf(v).add(TWO_TO_64) : (Object) v;
      }
      case "decimal":
        return (BigDecimal) raw;
      case "float":
      case "double":
        return raw;
      case "bit": {
        long[] words = ((BitSet) raw).toLongArray();
        return words.length == 0 ? 0L : words[0];
      }
      case "year": {
        int y = ((Number) raw).intValue();
        // The row image stores a year as an offset from 1900, where 0 means the zero year 0000.
        return y == 1900 ? 0 : y;
      }
      case "enum":
      case "set":
        // The row image holds the enum index and the set bitmask; MySQL takes both back as numbers.
        return ((Number) raw).longValue();
      case "date": {
        long micros = (Long) raw;
        return micros == ZERO_DATE ? "0000-00-00"
            : LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), 0, ZoneOffset.UTC).format(DATE);
      }
      case "datetime":
        return temporalOrZero((Long) raw, "0000-00-00 00:00:00");
      case "timestamp":
        // The session runs in UTC; 0 is the zero timestamp, as 1970-01-01 00:00:00 UTC is out of range.
        return (Long) raw == 0L ? "0000-00-00 00:00:00" : temporalOrZero((Long) raw, "0000-00-00 00:00:00");
      case "time":
        return time((Long) raw);
      case "json":
        try {
          return JsonBinary.parseAsString((byte[]) raw);
        } catch (IOException e) {
          throw PointsmanException.invalidArgument("column " + column.name() + " holds binary JSON that cannot be decoded");
        }
      case "char":
      case "varchar":
      case "binary":
      case "varbinary":
      case "tinytext":
      case "text":
      case "mediumtext":
      case "longtext":
      case "tinyblob":
      case "blob":
      case "mediumblob":
      case "longblob":
        return raw instanceof String s ? s : (byte[]) raw;
      default:
        throw PointsmanException.invalidArgument("column " + column.name() + " has type " + column.dataType()
            + ", which the sandbox stream runner does not replicate");
    }
  }

  private static Object integer(Object raw, boolean unsigned, long mask) {
    long v = ((Number) raw).longValue();
    return unsigned ? v & mask : v;
  }

  private static String temporalOrZero(long micros, String zero) {
    if (micros == ZERO_DATE) {
      return zero;
    }
    long seconds = Math.floorDiv(micros, 1_000_000L);
    int nanos = (int) Math.floorMod(micros, 1_000_000L) * 1000;
    return LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC).format(DATETIME);
  }

  private static String time(long micros) {
    long totalSeconds = Math.floorDiv(micros, 1_000_000L);
    long fraction = Math.floorMod(micros, 1_000_000L);
    return String.format("%02d:%02d:%02d.%06d", totalSeconds / 3600, (totalSeconds / 60) % 60, totalSeconds % 60, fraction);
  }
}
