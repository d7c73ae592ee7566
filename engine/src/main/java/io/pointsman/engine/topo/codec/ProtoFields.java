package io.pointsman.engine.topo.codec;

import com.google.protobuf.ByteString;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.model.KeyRange;
import io.vitess.proto.Topodata;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.function.Consumer;
import vttime.Vttime;

/** Conversions between the models' plain values and Vitess's field types, shared by the mappers. */
final class ProtoFields {
  private static final HexFormat HEX = HexFormat.of();

  private ProtoFields() {}

  /** Models keep an absent string as null (as the JSON layout did); proto3 has only "". */
  /** Sets a message field from {@code value}, or clears it when there is none: proto fields hold no null. */
  static <T> void setOrClear(T value, Consumer<T> set, Runnable clear) {
    if (value == null) {
      clear.run();
    } else {
      set.accept(value);
    }
  }

  static String nullIfEmpty(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  static String emptyIfNull(String s) {
    return s == null ? "" : s;
  }

  static KeyRange keyRange(Topodata.KeyRange kr) {
    return new KeyRange(HEX.formatHex(kr.getStart().toByteArray()), HEX.formatHex(kr.getEnd().toByteArray()));
  }

  /** A present but empty key range is the full range; an absent one is null, as in the models. */
  static KeyRange keyRangeOrNull(boolean present, Topodata.KeyRange kr) {
    return present ? keyRange(kr) : null;
  }

  static Topodata.KeyRange keyRange(KeyRange kr, Topodata.KeyRange base) {
    return base.toBuilder().setStart(bound("start", kr.start())).setEnd(bound("end", kr.end())).build();
  }

  private static ByteString bound(String what, String hex) {
    if (hex.length() % 2 != 0) {
      throw PointsmanException.invalidArgument(
          "key range " + what + " '" + hex + "' has an odd number of hex digits; Vitess stores whole bytes");
    }
    return ByteString.copyFrom(HEX.parseHex(hex));
  }

  static TabletAlias alias(Topodata.TabletAlias a) {
    return new TabletAlias(a.getCell(), Integer.toUnsignedLong(a.getUid()));
  }

  static Topodata.TabletAlias alias(TabletAlias a, Topodata.TabletAlias base) {
    return base.toBuilder().setCell(a.cell()).setUid((int) a.uid()).build();
  }

  /** The models' enum follows the proto's numbering (UNKNOWN 0 ... DRAINED 8). */
  static TabletType tabletType(int number) {
    TabletType[] all = TabletType.values();
    if (number < 0 || number >= all.length) {
      throw new IllegalArgumentException("tablet type " + number + " is not one pointsman knows");
    }
    return all[number];
  }

  static int tabletTypeNumber(TabletType type) {
    return type == null ? 0 : type.ordinal();
  }

  /** vttime.Time as ISO-8601 ({@link Instant#toString()}), which keeps seconds and nanoseconds exactly. */
  static String time(Vttime.Time t) {
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanoseconds()).toString();
  }

  static Vttime.Time time(String iso, Vttime.Time base) {
    try {
      Instant i = Instant.parse(iso);
      return base.toBuilder().setSeconds(i.getEpochSecond()).setNanoseconds(i.getNano()).build();
    } catch (DateTimeParseException e) {
      throw PointsmanException.invalidArgument("time '" + iso + "' is not an ISO-8601 instant");
    }
  }
}
