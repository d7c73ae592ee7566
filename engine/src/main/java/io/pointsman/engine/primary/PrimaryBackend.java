package io.pointsman.engine.primary;

import io.pointsman.api.errors.PointsmanException;
import java.util.Locale;

/** Which world serves the shard primaries' ports (the worker's {@code POINTSMAN_PRIMARY_BACKEND}). */
public enum PrimaryBackend {
  /** vttablet's RPCs where the primary's Tablet record carries a gRPC port, direct MySQL elsewhere. */
  AUTO,
  /** vttablet's tablet-manager RPCs only (real Vitess). */
  TABLET,
  /** The primaries' MySQL, written directly (the sandbox, where no vttablet runs). */
  DIRECT;

  /** Parses a setting's value, case-insensitively; blank is {@link #AUTO}. */
  public static PrimaryBackend parse(String setting, String value) {
    if (value == null || value.isBlank()) {
      return AUTO;
    }
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw PointsmanException.invalidArgument(setting + " must be auto, tablet or direct, got '" + value + "'");
    }
  }
}
