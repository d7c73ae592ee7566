package io.pointsman.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.MirrorTrafficRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code MoveTables MirrorTraffic}: vtctldclient's {@code mirrortraffic} flags and defaults into the
 * workflow's input, and a bad value refused naming its flag before Temporal is contacted. Nothing
 * here talks to Temporal.
 */
class MirrorTrafficCommandTest {
  private static String[] args(String... more) {
    return CliRun.moveTables(more);
  }

  private static MirrorTrafficRequest request(String... more) {
    return (MirrorTrafficRequest) CliRun.parse(MirrorTrafficCommand.class, args(more)).request();
  }

  private static CliRun runWithoutTemporal(String... more) {
    return CliRun.withoutTemporal(CliRun.moveTables(more));
  }

  @Test
  void defaultsAreVtctldclients() {
    MirrorTrafficCommand c = CliRun.parse(MirrorTrafficCommand.class, args("MirrorTraffic"));
    MirrorTrafficRequest r = (MirrorTrafficRequest) c.request();

    // the API's defaults: every type, 1 percent, no dry run
    assertThat(r).isEqualTo(MirrorTrafficRequest.of("commerce2customer", "customer"));
    assertThat(r.tabletTypes()).containsExactly(TabletType.PRIMARY, TabletType.REPLICA, TabletType.RDONLY);
    assertThat(r.percent()).isEqualTo(1.0f);
    assertThat(r.dryRun()).isFalse();
    assertThat(c.dryRun()).isFalse();
    assertThat(c.workflowType()).isEqualTo("MirrorTraffic");
  }

  @Test
  void everyFlagReachesTheRequest() {
    MirrorTrafficCommand c = CliRun.parse(MirrorTrafficCommand.class, args("MirrorTraffic", "--tablet-types",
        "replica,RDONLY", "--percent", "5", "--dry-run", "--lock-ttl", "45s", "--max-lock-hold", "20m"));
    MirrorTrafficRequest r = (MirrorTrafficRequest) c.request();

    assertThat(r).isEqualTo(new MirrorTrafficRequest("commerce2customer", "customer",
        List.of(TabletType.REPLICA, TabletType.RDONLY), 5f, true, Duration.ofSeconds(45), Duration.ofMinutes(20)));
    assertThat(c.dryRun()).isTrue();
  }

  @ParameterizedTest
  @CsvSource({"5, 5.0", "0.5, 0.5", "12.25, 12.25", "100, 100.0", "1e1, 10.0", "' 7.5 ', 7.5"})
  void percentTakesDecimalNumbers(String flag, float expected) {
    assertThat(request("MirrorTraffic", "--percent", flag).percent()).isEqualTo(expected);
  }

  /** vtctldclient's way to stop mirroring: the request carries 0, which the workflow turns into removing the rules. */
  @Test
  void percentZeroIsAccepted() {
    MirrorTrafficRequest r = request("MirrorTraffic", "--tablet-types", "primary", "--percent=0");

    assertThat(r.percent()).isZero();
    assertThat(r.tabletTypes()).containsExactly(TabletType.PRIMARY);
  }

  @Test
  void oneTabletTypeAndAliasesAsVtctldclientTakesThem() {
    assertThat(request("MirrorTraffic", "--tablet-types", "rdonly").tabletTypes()).containsExactly(TabletType.RDONLY);
    assertThat(request("MirrorTraffic", "--tablet-types", "master,batch").tabletTypes())
        .containsExactly(TabletType.PRIMARY, TabletType.RDONLY);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--tablet-types|SPARE|invalid value for --tablet-types: 'SPARE' is not one of PRIMARY, REPLICA, RDONLY",
      "--tablet-types|replica,nosuch|invalid value for --tablet-types: 'nosuch' is not one of PRIMARY, REPLICA, RDONLY",
      "--percent|101|invalid value for --percent: must be from 0 to 100",
      "--percent|-1|invalid value for --percent: must be from 0 to 100",
      "--percent|1e400|invalid value for --percent: must be from 0 to 100",
      "--percent|abc|invalid value for --percent: 'abc' is not a number",
      "--percent|5%|invalid value for --percent: '5%' is not a number",
      "--percent|NaN|invalid value for --percent: 'NaN' is not a number",
      "--percent|Infinity|invalid value for --percent: 'Infinity' is not a number",
      "--lock-ttl|1s|invalid value for --lock-ttl: must be at least 2s",
      "--max-lock-hold|1m|invalid value for --max-lock-hold: must be longer than lockTtl"})
  void aBadValueIsAUsageErrorThatNamesTheFlagAndStartsNothing(String flag, String value, String message) {
    MirrorTrafficCommand c = CliRun.parse(MirrorTrafficCommand.class, args("MirrorTraffic", flag, value));
    assertThatThrownBy(c::request).isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining(message);

    CliRun run = runWithoutTemporal("MirrorTraffic", flag + "=" + value);
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("error: " + message).contains("Nothing was started")
        .doesNotContain("cannot reach Temporal");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void aMissingWorkflowIsAUsageError() {
    CliRun run = CliRun.of("--temporal-address", "127.0.0.1:1", "MoveTables", "--target-keyspace", "customer",
        "MirrorTraffic");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("missing required option --workflow");
  }

  /** vtctldclient names it {@code mirrortraffic} with the alias {@code MirrorTraffic}; any case goes, as for the others. */
  @ParameterizedTest
  @ValueSource(strings = {"MirrorTraffic", "mirrortraffic", "MIRRORTRAFFIC"})
  void theActionIsCaseInsensitiveLikeVtctldclients(String action) {
    MirrorTrafficCommand c = CliRun.parse(MirrorTrafficCommand.class, "movetables", "-w", "wf", "--target-keyspace",
        "ks", action, "--percent", "2");

    assertThat(c.spec.name()).isEqualTo("MirrorTraffic");
    assertThat(c.group.groupName()).isEqualTo("MoveTables");
    assertThat(((MirrorTrafficRequest) c.request()).percent()).isEqualTo(2f);
  }

  /** vtctldclient registers mirrortraffic under MoveTables only. */
  @ParameterizedTest
  @ValueSource(strings = {"Reshard", "Migrate"})
  void otherGroupsHaveNoMirrorTraffic(String group) {
    CliRun run = CliRun.of("--temporal-address", "127.0.0.1:1", group, "-w", "wf", "--target-keyspace", "ks",
        "MirrorTraffic");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("'MirrorTraffic'").contains("Nothing was started");
  }

  @Test
  void helpExplainsEveryFlagWithVtctldclientsDefaults() {
    CliRun run = CliRun.of("MoveTables", "MirrorTraffic", "--help");
    assertThat(run.exitCode()).isZero();
    CommandSpec spec = PointsmanCli.commandLine().getSubcommands().get("MoveTables").getSubcommands()
        .get("MirrorTraffic").getCommandSpec();
    for (OptionSpec o : spec.options()) {
      assertThat(String.join(" ", o.description())).as(o.longestName()).isNotBlank();
      assertThat(run.out()).contains(o.longestName());
    }
    String help = run.out().replaceAll("\\s+", " ");
    assertThat(help).contains("--tablet-types=TYPES").contains("(default: all three)")
        .contains("--percent=PERCENT").contains("(default: " + MirrorTrafficRequest.DEFAULT_PERCENT + ")")
        .contains("--dry-run").contains("vtctldclient has none here")
        .contains("--lock-ttl=DURATION").contains("--max-lock-hold=DURATION");
    assertThat(CliRun.of("MoveTables", "--help").out()).contains("MirrorTraffic");
  }
}
