package io.pointsman.engine.topo.model;

import io.pointsman.api.errors.PointsmanException;
import java.util.Locale;

/** Vitess's tablet types; only PRIMARY, REPLICA and RDONLY take part in traffic switching. */
public enum TabletType {
  UNKNOWN, PRIMARY, REPLICA, RDONLY, SPARE, EXPERIMENTAL, BACKUP, RESTORE, DRAINED;

  /** Parses a tablet type as vtctldclient accepts it, case-insensitively, with MASTER and BATCH aliases. */
  public static TabletType parse(String s) {
    if (s == null) {
      throw PointsmanException.invalidArgument("tablet type is missing");
    }
    String u = s.trim().toUpperCase(Locale.ROOT);
    switch (u) {
      case "MASTER":
        return PRIMARY;
      case "BATCH":
        return RDONLY;
      default:
        try {
          return valueOf(u);
        } catch (IllegalArgumentException e) {
          throw PointsmanException.invalidArgument("unknown tablet type '" + s + "'");
        }
    }
  }

  /** The lowercase suffix routing rules use: {@code @replica}, {@code @rdonly}. */
  public String ruleSuffix() {
    return this == PRIMARY ? "" : "@" + name().toLowerCase(Locale.ROOT);
  }
}
