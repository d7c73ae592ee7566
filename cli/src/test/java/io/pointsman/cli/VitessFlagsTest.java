package io.pointsman.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * vtctldclient's --force, --shards, --initialize-target-sequences, --ignore-source-keyspace and
 * --delete-batch-size: taken by name with vtctldclient's defaults; --ignore-source-keyspace reaches
 * MoveTables Complete and Cancel as their request's field; the others, set to what pointsman cannot do
 * (or, for --initialize-target-sequences, on a command vtctldclient does not give it), a usage error
 * that names the flag and why, before Temporal is contacted (exit 2, nothing started).
 */
class VitessFlagsTest {
  private static final String[] MOVETABLES = {"MoveTables", "-w", "commerce2customer", "--target-keyspace",
      "customer"};

  private static CliRun run(String... more) {
    String[] all = new String[MOVETABLES.length + more.length];
    System.arraycopy(MOVETABLES, 0, all, 0, MOVETABLES.length);
    System.arraycopy(more, 0, all, MOVETABLES.length, more.length);
    return CliRun.withoutTemporal(all);
  }

  @Test
  void atTheirDefaultsTheFlagsDecodeToTheSameRequests() {
    SwitchTrafficCommand sw = CliRun.parse(SwitchTrafficCommand.class, "MoveTables", "-w", "wf", "--target-keyspace",
        "ks", "SwitchTraffic", "--force=false", "--initialize-target-sequences=false");
    assertThat(sw.flags.force).isFalse();
    assertThat(sw.flags.shards).isEmpty();
    assertThat(sw.request()).isEqualTo(SwitchTrafficRequest.of("wf", "ks"));
    SwitchTrafficCommand sequences = CliRun.parse(SwitchTrafficCommand.class, "MoveTables", "-w", "wf",
        "--target-keyspace", "ks", "SwitchTraffic", "--initialize-target-sequences");
    assertThat(sequences.request()).isEqualTo(SwitchTrafficRequest.of("wf", "ks").withInitializeTargetSequences(true));
    MoveTablesCompleteCommand complete = CliRun.parse(MoveTablesCompleteCommand.class, "MoveTables", "-w", "wf",
        "--target-keyspace", "ks", "Complete");
    assertThat(complete.request()).isEqualTo(CompleteRequest.of("wf", "ks"));
    MoveTablesCancelCommand cancel = CliRun.parse(MoveTablesCancelCommand.class, "MoveTables", "-w", "wf",
        "--target-keyspace", "ks", "Cancel", "--delete-batch-size", "500");
    assertThat(cancel.deleteBatchSize).isEqualTo(500);
    assertThat(cancel.request()).isEqualTo(CancelRequest.of("wf", "ks"));
    assertThat(CliRun.parse(MoveTablesCancelCommand.class, "MoveTables", "-w", "wf", "--target-keyspace", "ks",
        "Cancel").deleteBatchSize).as("vtctldclient's default").isEqualTo(1000);
  }

  @Test
  void ignoreSourceKeyspaceReachesCompleteAndCancelOfMoveTablesAndNotReshard() {
    MoveTablesCompleteCommand complete = CliRun.parse(MoveTablesCompleteCommand.class, "MoveTables", "-w", "wf",
        "--target-keyspace", "ks", "Complete", "--ignore-source-keyspace", "--keep-data");
    assertThat(complete.request()).isEqualTo(CompleteRequest.of("wf", "ks").with(true, false, false, false)
        .ignoringSourceKeyspace());
    MoveTablesCancelCommand cancel = CliRun.parse(MoveTablesCancelCommand.class, "MoveTables", "-w", "wf",
        "--target-keyspace", "ks", "Cancel", "--ignore-source-keyspace");
    assertThat(cancel.request()).isEqualTo(CancelRequest.of("wf", "ks").ignoringSourceKeyspace());
    CliRun reshard = CliRun.of("--temporal-address", "127.0.0.1:1", "Reshard", "-w", "cust2cust", "--target-keyspace",
        "customer", "Complete", "--ignore-source-keyspace");
    assertThat(reshard.exitCode()).as("Reshard Complete has no such flag in vtctldclient").isEqualTo(2);
    assertThat(reshard.err()).contains("--ignore-source-keyspace");
  }

  @Test
  void setToWhatPointsmanCannotDoEachIsAUsageErrorNamingTheFlag() {
    for (List<String> args : List.of(
        List.of("SwitchTraffic", "--shards", "-80", "invalid value for --shards: cannot be honoured (-80)"),
        List.of("ReverseTraffic", "--shards", "-80,80-", "invalid value for --shards: cannot be honoured (-80,80-)"),
        List.of("SwitchTraffic", "--force", "invalid value for --force: cannot be honoured"),
        List.of("ReverseTraffic", "--initialize-target-sequences",
            "invalid value for --initialize-target-sequences: it applies to MoveTables SwitchTraffic only"),
        List.of("Complete", "--shards", "80-", "invalid value for --shards: cannot be honoured (80-)"),
        List.of("Complete", "--ignore-source-keyspace", "--journal-grace", "1h",
            "invalid value for --journal-grace: cannot be honoured with ignoreSourceKeyspace"),
        List.of("Cancel", "--shards", "-80", "invalid value for --shards: cannot be honoured (-80)"),
        List.of("Cancel", "--delete-batch-size", "0", "invalid value for --delete-batch-size: must be at least 1"))) {
      String expected = args.get(args.size() - 1);
      CliRun r = run(args.subList(0, args.size() - 1).toArray(String[]::new));
      assertThat(r.exitCode()).as(args.toString()).isEqualTo(2);
      assertThat(r.err()).as(args.toString()).contains(expected).contains("Nothing was started");
    }
    CliRun reshard = CliRun.of("--temporal-address", "127.0.0.1:1", "Reshard", "-w", "cust2cust", "--target-keyspace",
        "customer", "SwitchTraffic", "--initialize-target-sequences");
    assertThat(reshard.exitCode()).as("Reshard SwitchTraffic has no such flag in vtctldclient").isEqualTo(2);
    assertThat(reshard.err()).contains("invalid value for --initialize-target-sequences: it applies to MoveTables"
        + " SwitchTraffic only").contains("Nothing was started");
    CliRun shardName = run("SwitchTraffic", "--shards", "nope!");
    assertThat(shardName.exitCode()).isEqualTo(2);
    assertThat(shardName.err()).contains("invalid value for --shards");
  }
}
