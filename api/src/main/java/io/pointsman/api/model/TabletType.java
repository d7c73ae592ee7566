package io.pointsman.api.model;

import io.pointsman.api.errors.PointsmanException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Vitess's tablet types, named and ordered as topodata.TabletType numbers them (UNKNOWN 0 ...
 * DRAINED 8), so the topology codec maps them by number and JSON payloads carry the same names.
 * Only REPLICA, RDONLY and PRIMARY take part in traffic switching ({@link #SWITCHED}).
 */
public enum TabletType {
  UNKNOWN, PRIMARY, REPLICA, RDONLY, SPARE, EXPERIMENTAL, BACKUP, RESTORE, DRAINED;

  /** The types SwitchTraffic moves, in the order vtctldclient switches them by default. */
  public static final List<TabletType> SWITCHED = List.of(REPLICA, RDONLY, PRIMARY);

  /** Old names vtctldclient still accepts on input; the only place pointsman lists aliases. */
  private static final Map<String, TabletType> ALIASES = Map.of("MASTER", PRIMARY, "BATCH", RDONLY);

  /** A name, case-insensitively and trimmed, or one of the aliases MASTER and BATCH; empty if unknown. */
  public static Optional<TabletType> lookup(String s) {
    if (s == null) {
      return Optional.empty();
    }
    String u = s.trim().toUpperCase(Locale.ROOT);
    TabletType alias = ALIASES.get(u);
    if (alias != null) {
      return Optional.of(alias);
    }
    return Arrays.stream(values()).filter(t -> t.name().equals(u)).findFirst();
  }

  /** Like {@link #lookup}, failing with a message that names the bad value and the accepted ones. */
  public static TabletType parse(String s) {
    if (s == null) {
      throw PointsmanException.invalidArgument("tablet type is missing");
    }
    return lookup(s).orElseThrow(() -> PointsmanException.invalidArgument(
        "unknown tablet type '" + s + "': expected one of " + names(List.of(values())) + " (or MASTER, BATCH)"));
  }

  /** Whether this type serves reads SwitchTraffic moves separately from writes (REPLICA, RDONLY). */
  public boolean isSwitchedRead() {
    return this == REPLICA || this == RDONLY;
  }

  /** The lowercase suffix routing rules use: {@code @replica}, {@code @rdonly}; none for PRIMARY. */
  public String ruleSuffix() {
    return this == PRIMARY ? "" : "@" + name().toLowerCase(Locale.ROOT);
  }

  private static String names(List<TabletType> types) {
    return String.join(", ", types.stream().map(Enum::name).toList());
  }
}
