package io.pointsman.cli;

import io.pointsman.api.request.TimeLimits;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The flags of SwitchTraffic and ReverseTraffic, named and defaulted as vtctldclient's. */
final class SwitchFlags {
  @Option(names = "--tablet-types", split = ",", paramLabel = "TYPES",
      description = "Tablet types to switch: any of PRIMARY, REPLICA, RDONLY, comma-separated; PRIMARY switches "
          + "writes, the others reads (default: all three).")
  List<String> tabletTypes = new ArrayList<>();

  @Option(names = {"-c", "--cells"}, split = ",", paramLabel = "CELLS",
      description = "Cells to switch read traffic in, comma-separated (default: all cells).")
  List<String> cells = new ArrayList<>();

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = TimeLimits.DEFAULT_TIMEOUT_TEXT,
      description = "How long open transactions on the moved tables may take to end once writes stop, and "
          + "replication to catch up; past it the switch rolls back. Minimum " + TimeLimits.MIN_TIMEOUT_TEXT
          + " (default: ${DEFAULT-VALUE}).")
  String timeout;

  @Option(names = "--max-replication-lag-allowed", paramLabel = "DURATION",
      defaultValue = TimeLimits.DEFAULT_MAX_REPLICATION_LAG_TEXT,
      description = "Refuse to switch while any stream lags more than this (default: ${DEFAULT-VALUE}).")
  String maxReplicationLagAllowed;

  @Option(names = "--enable-reverse-replication", arity = "0..1", paramLabel = "BOOL", defaultValue = "true",
      fallbackValue = "true",
      description = "Start reverse replication when writes switch, so traffic can be switched back without "
          + "losing writes; --enable-reverse-replication=false turns it off (default: ${DEFAULT-VALUE}).")
  boolean enableReverseReplication;

  @Option(names = "--force",
      description = "vtctldclient's forced switch, which goes on past a failed read of the source journals and "
          + "tablets that could not be refreshed. Not supported: pointsman stops on both; true is refused "
          + "(default: false).")
  boolean force;

  @Option(names = "--shards", split = ",", paramLabel = "SHARDS",
      description = "vtctldclient's shard subset (partial MoveTables). Not supported: pointsman switches every shard "
          + "of the workflow; a subset is refused (default: all shards).")
  List<String> shards = new ArrayList<>();

  @Option(names = "--initialize-target-sequences",
      description = "MoveTables SwitchTraffic from an unsharded keyspace: as writes switch, move each sequence the "
          + "target's VSchema gives a moved table past the highest id on the target (default: false).")
  boolean initializeTargetSequences;

  @Option(names = "--dry-run",
      description = "Print the plan from the current state and change nothing (default: false).")
  boolean dryRun;
}
