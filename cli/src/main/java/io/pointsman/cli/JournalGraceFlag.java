package io.pointsman.cli;

import picocli.CommandLine.Option;

/** Complete's {@code --journal-grace}: hold Complete until the switch's journal is at least that old. */
final class JournalGraceFlag {
  @Option(names = "--journal-grace", paramLabel = "DURATION", defaultValue = "0s",
      description = "Refuse to complete until the switch's journal is at least this old, so change-stream "
          + "(VStream) consumers still reading the source can reach it first (default: ${DEFAULT-VALUE}).")
  String journalGrace;
}
