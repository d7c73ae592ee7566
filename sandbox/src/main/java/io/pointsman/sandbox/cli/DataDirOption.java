package io.pointsman.sandbox.cli;

import io.pointsman.sandbox.cluster.SandboxOptions;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The sandbox's data folder, shared by every subcommand. */
final class DataDirOption {
  @Option(names = "--data-dir", paramLabel = "DIR",
      description = "Folder for the servers' data, logs and the sandbox state file (default: ${DEFAULT-VALUE}).")
  Path dataDir = SandboxOptions.builder().build().dataDir();
}
