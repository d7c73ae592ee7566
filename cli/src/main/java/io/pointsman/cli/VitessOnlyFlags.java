package io.pointsman.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * vtctldclient's {@code --shards} and {@code --ignore-source-keyspace} of MoveTables Complete and
 * Cancel, same names and defaults. pointsman takes them at their defaults only: set, the request
 * decoder refuses them with the reason and nothing starts.
 */
final class VitessOnlyFlags {
  @Option(names = "--shards", split = ",", paramLabel = "SHARDS",
      description = "vtctldclient's shard subset. Not supported: pointsman acts on every shard of the workflow; "
          + "a subset is refused (default: all shards).")
  List<String> shards = new ArrayList<>();

  @Option(names = "--ignore-source-keyspace",
      description = "vtctldclient's way past a source keyspace that is gone. Not supported: pointsman completes and "
          + "cancels through the source keyspace; true is refused (default: false).")
  boolean ignoreSourceKeyspace;
}
