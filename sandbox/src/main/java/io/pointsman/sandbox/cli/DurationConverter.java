package io.pointsman.sandbox.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Durations as {@code 500ms}, {@code 30s}, {@code 2m}, or ISO-8601 ({@code PT30S}). */
final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m)");

  @Override
  public Duration convert(String value) {
    Matcher m = SHORT.matcher(value.trim());
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      switch (m.group(2)) {
        case "ms":
          return Duration.ofMillis(n);
        case "s":
          return Duration.ofSeconds(n);
        default:
          return Duration.ofMinutes(n);
      }
    }
    try {
      return Duration.parse(value.trim());
    } catch (RuntimeException e) {
      throw new TypeConversionException("'" + value + "' is not a duration such as 30s, 2m or PT30S");
    }
  }
}
