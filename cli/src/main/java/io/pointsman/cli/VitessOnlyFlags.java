package io.pointsman.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * vtctldclient's {@code --shards} and {@code --ignore-source-keyspace} of MoveTables Complete and
 * Cancel, same names and defaults. pointsman takes {@code --shards} at its default only: set, the
 * request decoder refuses it with the reason and nothing starts.
 */
final class VitessOnlyFlags {
  @Option(names = "--shards", split = ",", paramLabel = "SHARDS",
      description = "vtctldclient's shard subset. Not supported: pointsman acts on every shard of the workflow; "
          + "a subset is refused (default: all shards).")
  List<String> shards = new ArrayList<>();

  @Option(names = "--ignore-source-keyspace",
      description = "Complete or cancel without reading, locking or changing the source keyspace, for one that was "
          + "deleted or cannot be reached: its tables, denied tables and reverse streams are left as they are, and "
          + "only the target keyspace is locked. Use it only when the source is truly gone (default: false).")
  boolean ignoreSourceKeyspace;
}
