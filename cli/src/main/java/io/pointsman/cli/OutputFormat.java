package io.pointsman.cli;

import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** vtctldclient's {@code --format}: text (default) or json, case-insensitive. */
enum OutputFormat {
  TEXT, JSON;

  static final String FLAG_DESCRIPTION = "The format of the output; supported formats are: text,json "
      + "(default: ${DEFAULT-VALUE}).";

  /** The format named by the flag; a usage error naming the flag for anything else. */
  static OutputFormat of(CommandSpec spec, String value) {
    String v = value == null ? "text" : value.trim().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "text" -> TEXT;
      case "json" -> JSON;
      default -> throw new ParameterException(spec.commandLine(),
          "invalid value for --format: '" + value + "' (supported formats are: text,json)");
    };
  }
}
