package io.pointsman.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.client.TemporalOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** The CLI's parsing and defaults, which follow vtctldclient's. Nothing here talks to Temporal. */
class PointsmanCliTest {
  private static String[] args(String... more) {
    return CliRun.moveTables(more);
  }

  @Test
  void switchTrafficDefaultsAreVtctldclients() {
    SwitchTrafficCommand c = CliRun.parse(SwitchTrafficCommand.class, args("SwitchTraffic"));
    SwitchTrafficRequest r = (SwitchTrafficRequest) c.request();

    // the API's defaults, which RequestDecodingTest holds to vtctldclient's
    assertThat(r).isEqualTo(SwitchTrafficRequest.of("commerce2customer", "customer"));
    assertThat(c.workflowType()).isEqualTo("SwitchTraffic");
  }

  @Test
  void temporalDefaultsAreTheLocalServer() {
    SwitchTrafficCommand c = CliRun.parse(SwitchTrafficCommand.class, args("SwitchTraffic"));
    TemporalOptions t = c.group.root.temporalOptions();

    assertThat(t.address()).isEqualTo(System.getenv().getOrDefault("TEMPORAL_ADDRESS", "127.0.0.1:7233"));
    assertThat(t.namespace()).isEqualTo(System.getenv().getOrDefault("TEMPORAL_NAMESPACE", "default"));
    assertThat(t.taskQueue()).isEqualTo("pointsman");
  }

  @Test
  void everyFlagReachesTheRequest() {
    SwitchTrafficCommand c = CliRun.parse(SwitchTrafficCommand.class, args("SwitchTraffic",
        "--tablet-types", "replica,RDONLY", "-c", "zone1,zone2", "--timeout", "1m30s",
        "--max-replication-lag-allowed", "5s", "--enable-reverse-replication=false", "--dry-run",
        "--lock-ttl", "45s", "--max-lock-hold", "20m"));
    SwitchTrafficRequest r = (SwitchTrafficRequest) c.request();

    assertThat(r).isEqualTo(SwitchTrafficRequest.of("commerce2customer", "customer")
        .withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY)).withCells(List.of("zone1", "zone2"))
        .withTimeout(Duration.ofSeconds(90)).withMaxReplicationLagAllowed(Duration.ofSeconds(5))
        .withEnableReverseReplication(false).withDryRun(true)
        .withLockTtl(Duration.ofSeconds(45)).withMaxLockHold(Duration.ofMinutes(20)));
  }

  @Test
  void workflowTargetAndTemporalFlagsMayFollowTheAction() {
    ReverseTrafficCommand c = CliRun.parse(ReverseTrafficCommand.class, "MoveTables", "ReverseTraffic",
        "--target-keyspace", "customer", "-w", "commerce2customer", "--temporal-address", "temporal.example:7233",
        "--namespace", "ops");
    SwitchTrafficRequest r = (SwitchTrafficRequest) c.request();

    assertThat(r.workflow()).isEqualTo("commerce2customer");
    assertThat(r.targetKeyspace()).isEqualTo("customer");
    assertThat(c.group.root.temporalOptions().address()).isEqualTo("temporal.example:7233");
    assertThat(c.group.root.temporalOptions().namespace()).isEqualTo("ops");
    assertThat(c.workflowType()).isEqualTo("ReverseTraffic");
  }

  @Test
  void actionsAreCaseInsensitiveLikeVtctldclient() {
    SwitchTrafficCommand c = CliRun.parse(SwitchTrafficCommand.class, "movetables", "-w", "wf",
        "--target-keyspace", "ks", "switchtraffic");

    assertThat(c.spec.name()).isEqualTo("SwitchTraffic");
    assertThat(c.group.groupName()).isEqualTo("MoveTables");
  }

  @Test
  void moveTablesCompleteTakesKeepDataKeepRoutingRulesRenameTablesAndDryRun() {
    MoveTablesCompleteCommand c = CliRun.parse(MoveTablesCompleteCommand.class, args("Complete", "--keep-data",
        "--keep-routing-rules", "--rename-tables", "--dry-run"));
    CompleteRequest r = (CompleteRequest) c.request();

    assertThat(r.keepData()).isTrue();
    assertThat(r.keepRoutingRules()).isTrue();
    assertThat(r.renameTables()).isTrue();
    assertThat(r.dryRun()).isTrue();
    assertThat(c.workflowType()).isEqualTo("CompleteMigration");

    CompleteRequest defaults = (CompleteRequest) CliRun.parse(MoveTablesCompleteCommand.class, args("Complete"))
        .request();
    assertThat(List.of(defaults.keepData(), defaults.keepRoutingRules(), defaults.renameTables(), defaults.dryRun()))
        .containsOnly(false);
  }

  @Test
  void completeTakesJournalGraceDefaultingToZeroAndRefusesABadOne() {
    CompleteRequest r = (CompleteRequest) CliRun.parse(MoveTablesCompleteCommand.class,
        args("Complete", "--journal-grace", "10m")).request();
    assertThat(r.journalGrace()).isEqualTo(java.time.Duration.ofMinutes(10));
    assertThat(((CompleteRequest) CliRun.parse(MoveTablesCompleteCommand.class, args("Complete")).request())
        .journalGrace()).isZero();
    CliRun reshard = CliRun.of("Reshard", "-w", "cust2cust", "--target-keyspace", "customer", "Complete",
        "--journal-grace", "soon");
    assertThat(reshard.exitCode()).isEqualTo(2);
    assertThat(reshard.err()).contains("invalid value for --journal-grace: 'soon' is not a duration");
  }

  @Test
  void moveTablesCancelTakesKeepDataAndKeepRoutingRules() {
    MoveTablesCancelCommand c = CliRun.parse(MoveTablesCancelCommand.class, args("Cancel", "--keep-data",
        "--keep-routing-rules"));
    CancelRequest r = (CancelRequest) c.request();

    assertThat(r.keepData()).isTrue();
    assertThat(r.keepRoutingRules()).isTrue();
    assertThat(r.dryRun()).isFalse();
    assertThat(c.workflowType()).isEqualTo("CancelMigration");
  }

  @ParameterizedTest
  @CsvSource({"Complete, --keep-data", "Complete, --rename-tables", "Complete, --dry-run",
      "Cancel, --keep-routing-rules", "Cancel, --dry-run"})
  void reshardCompleteAndCancelRegisterFewerFlagsLikeVtctldclient(String action, String flag) {
    CliRun run = CliRun.of("Reshard", "-w", "cust2cust", "--target-keyspace", "customer", action, flag);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Unknown option: '" + flag + "'").contains("Nothing was started");
  }

  /** vtctldclient's {@code Migrate complete|cancel}: the same workflows, which finalize a Migrate. */
  @Test
  void migrateTakesCompleteAndCancelAndNoTrafficAction() {
    MoveTablesCompleteCommand complete = CliRun.parse(MoveTablesCompleteCommand.class, "Migrate", "-w", "mig",
        "--target-keyspace", "customer", "Complete", "--dry-run");
    assertThat(((CompleteRequest) complete.request()).dryRun()).isTrue();
    assertThat(complete.workflowType()).isEqualTo("CompleteMigration");
    assertThat(complete.group.groupName()).isEqualTo("Migrate");
    MoveTablesCancelCommand cancel = CliRun.parse(MoveTablesCancelCommand.class, "Migrate", "-w", "mig",
        "--target-keyspace", "customer", "Cancel", "--keep-data");
    assertThat(((CancelRequest) cancel.request()).keepData()).isTrue();

    CliRun run = CliRun.of("Migrate", "-w", "mig", "--target-keyspace", "customer", "SwitchTraffic");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("SwitchTraffic");
  }

  @Test
  void reshardCancelTakesKeepData() {
    CancelRequest r = (CancelRequest) CliRun.parse(ReshardCancelCommand.class, "Reshard", "-w", "cust2cust",
        "--target-keyspace", "customer", "Cancel", "--keep-data").request();

    assertThat(r.keepData()).isTrue();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--timeout|500ms|invalid value for --timeout: must be at least 1s, got 500ms",
      "--timeout|soon|invalid value for --timeout: 'soon' is not a duration",
      "--max-replication-lag-allowed|-5s|invalid value for --max-replication-lag-allowed:",
      "--tablet-types|PRIMARY,SPARE|invalid value for --tablet-types: 'SPARE' is not one of PRIMARY, REPLICA, RDONLY",
      "--lock-ttl|1s|invalid value for --lock-ttl: must be at least 2s",
      "--max-lock-hold|1m|invalid value for --max-lock-hold: must be longer than lockTtl",
      "--cells|zone 1|invalid value for --cells:"})
  void aBadValueIsAUsageErrorThatNamesTheFlag(String flag, String value, String message) {
    SwitchTrafficCommand c = CliRun.parse(SwitchTrafficCommand.class, args("SwitchTraffic", flag, value));

    assertThatThrownBy(c::request).isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining(message);
  }

  @Test
  void aMissingWorkflowIsAUsageError() {
    CliRun run = CliRun.of("MoveTables", "--target-keyspace", "customer", "SwitchTraffic");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("missing required option --workflow");
  }

  @Test
  void aBadKeyspaceNameIsAUsageError() {
    CliRun run = CliRun.of("MoveTables", "-w", "wf", "--target-keyspace", "cust;omer", "Status");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("invalid value for --target-keyspace");
  }

  @Test
  void helpExplainsEveryFlagOfEveryAction() {
    for (String group : List.of("MoveTables", "Reshard")) {
      for (String action : List.of("SwitchTraffic", "ReverseTraffic", "Complete", "Cancel", "Status")) {
        CliRun run = CliRun.of(group, action, "--help");
        assertThat(run.exitCode()).as(group + " " + action).isZero();
        CommandSpec spec = PointsmanCli.commandLine().getSubcommands().get(group).getSubcommands().get(action)
            .getCommandSpec();
        for (OptionSpec o : spec.options()) {
          assertThat(o.description()).as(group + " " + action + " " + o.longestName()).isNotEmpty();
          assertThat(String.join(" ", o.description())).as(o.longestName()).isNotBlank();
          assertThat(run.out()).as(group + " " + action).contains(o.longestName());
        }
      }
    }
  }

  @Test
  void helpShowsVtctldclientsDefaults() {
    String help = CliRun.of("MoveTables", "SwitchTraffic", "--help").out().replaceAll("\\s+", " ");

    assertThat(help).contains("--timeout=DURATION").contains("Minimum 1s (default: 30s)")
        .contains("--max-replication-lag-allowed=DURATION").contains("(default: 30s)")
        .contains("--enable-reverse-replication[=BOOL]").contains("(default: true)")
        .contains("--tablet-types").contains("(default: all three)")
        .contains("--lock-ttl=DURATION").contains("(default: 2m)")
        .contains("--max-lock-hold=DURATION").contains("(default: 10m)")
        .contains("--temporal-address=HOST:PORT").contains("--namespace=NAMESPACE");
  }
}
