package io.pointsman.worker;

import io.pointsman.api.request.GoDurations;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Reads settings from environment variables, with messages that name the variable. Secret values
 * never appear in a message: a secret is named, and its file's path shown, but not its content.
 */
final class Env {
  private final Map<String, String> vars;

  Env(Map<String, String> vars) {
    this.vars = Map.copyOf(vars);
  }

  /** The value, trimmed; empty when unset or blank (an empty variable counts as unset). */
  Optional<String> get(String name) {
    String v = vars.get(name);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
  }

  String get(String name, String defaultValue) {
    return get(name).orElse(defaultValue);
  }

  String required(String name, String what) {
    return get(name).orElseThrow(() -> new ConfigException(name + " is not set: it must name " + what));
  }

  int port(String name, int defaultValue) {
    Optional<String> v = get(name);
    if (v.isEmpty()) {
      return defaultValue;
    }
    try {
      int p = Integer.parseInt(v.get());
      if (p >= 0 && p <= 65535) {
        return p;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new ConfigException(name + " must be a port number from 0 to 65535, got '" + clip(v.get()) + "'");
  }

  int positiveInt(String name, int defaultValue, int max) {
    Optional<String> v = get(name);
    if (v.isEmpty()) {
      return defaultValue;
    }
    try {
      int n = Integer.parseInt(v.get());
      if (n >= 1 && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new ConfigException(name + " must be a whole number from 1 to " + max + ", got '" + clip(v.get()) + "'");
  }

  Duration duration(String name, Duration defaultValue) {
    Optional<String> v = get(name);
    if (v.isEmpty()) {
      return defaultValue;
    }
    Duration d = GoDurations.parseOrNull(v.get());
    if (d == null || d.isNegative() || d.isZero()) {
      throw new ConfigException(name + " must be a positive duration such as 30s or 2m, got '" + clip(v.get()) + "'");
    }
    return d;
  }

  Optional<Boolean> bool(String name) {
    Optional<String> v = get(name);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    return switch (v.get().toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes", "on" -> Optional.of(true);
      case "false", "0", "no", "off" -> Optional.of(false);
      default -> throw new ConfigException(name + " must be true or false, got '" + clip(v.get()) + "'");
    };
  }

  /** A file that must exist and be readable; its path, not its content. */
  Optional<Path> file(String name) {
    Optional<String> v = get(name);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    Path p = Path.of(v.get());
    if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
      throw new ConfigException(name + " names " + p + ", which is not a readable file");
    }
    return Optional.of(p);
  }

  /**
   * A secret given either as {@code NAME} or as a file {@code NAME_FILE} (the Docker secrets
   * convention); giving both is an error, since which one wins would be a guess.
   */
  Optional<String> secret(String name) {
    Optional<String> direct = Optional.ofNullable(vars.get(name)).filter(s -> !s.isEmpty());
    Optional<Path> file = file(name + "_FILE");
    if (direct.isPresent() && file.isPresent()) {
      throw new ConfigException("set either " + name + " or " + name + "_FILE, not both");
    }
    if (file.isPresent()) {
      try {
        return Optional.of(Files.readString(file.get(), StandardCharsets.UTF_8).stripTrailing());
      } catch (IOException e) {
        throw new ConfigException(name + "_FILE " + file.get() + " cannot be read: " + e.getClass().getSimpleName());
      }
    }
    return direct;
  }

  static String clip(String s) {
    String c = s.length() > 60 ? s.substring(0, 60) + "..." : s;
    return c.replaceAll("\\p{Cntrl}", "?");
  }
}
