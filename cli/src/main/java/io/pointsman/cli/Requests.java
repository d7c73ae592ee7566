package io.pointsman.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.InvalidRequestException;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.pointsman.api.request.ShowRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Builds the workflow input from the flags through the same decoding the Temporal UI's JSON goes
 * through, so the CLI accepts exactly what the workflow accepts, and turns a rejected field into
 * a usage error that names the flag.
 */
final class Requests {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** How the request decoders name a field: {@code SwitchTraffic input field 'timeout' must be ...}. */
  private static final Pattern FIELD_PROBLEM = Pattern.compile("^\\S+ input field '([A-Za-z]+)' (.*)$",
      Pattern.DOTALL);
  private static final Map<String, String> FLAGS = Map.ofEntries(
      Map.entry("workflow", "--workflow"),
      Map.entry("targetKeyspace", "--target-keyspace"),
      Map.entry("tabletTypes", "--tablet-types"),
      Map.entry("percent", "--percent"),
      Map.entry("cells", "--cells"),
      Map.entry("timeout", "--timeout"),
      Map.entry("maxReplicationLagAllowed", "--max-replication-lag-allowed"),
      Map.entry("enableReverseReplication", "--enable-reverse-replication"),
      Map.entry("dryRun", "--dry-run"),
      Map.entry("keepData", "--keep-data"),
      Map.entry("keepRoutingRules", "--keep-routing-rules"),
      Map.entry("renameTables", "--rename-tables"),
      Map.entry("journalGrace", "--journal-grace"),
      Map.entry("lockTtl", "--lock-ttl"),
      Map.entry("maxLockHold", "--max-lock-hold"),
      Map.entry("includeLogs", "--include-logs"),
      Map.entry("shards", "--shards"),
      Map.entry("force", "--force"),
      Map.entry("initializeTargetSequences", "--initialize-target-sequences"),
      Map.entry("ignoreSourceKeyspace", "--ignore-source-keyspace"));

  private Requests() {}

  static SwitchTrafficRequest switchTraffic(CommandSpec spec, MigrationGroup group, SwitchFlags s, LockFlags l) {
    ObjectNode n = common(group, l);
    s.tabletTypes.forEach(n.putArray("tabletTypes")::add);
    s.cells.forEach(n.putArray("cells")::add);
    n.put("timeout", s.timeout);
    n.put("maxReplicationLagAllowed", s.maxReplicationLagAllowed);
    n.put("enableReverseReplication", s.enableReverseReplication);
    n.put("dryRun", s.dryRun);
    // vtctldclient's flags pointsman cannot act on: sent only when set, so the decoder refuses them by name
    if (!s.shards.isEmpty()) {
      s.shards.forEach(n.putArray("shards")::add);
    }
    if (s.force) {
      n.put("force", true);
    }
    if (s.initializeTargetSequences) {
      // vtctldclient registers the flag on MoveTables SwitchTraffic only
      if (!"SwitchTraffic".equals(spec.name()) || !"MoveTables".equals(group.groupName())) {
        throw new ParameterException(spec.commandLine(), "invalid value for --initialize-target-sequences: "
            + "it applies to MoveTables SwitchTraffic only, as in vtctldclient (this is " + group.groupName() + " "
            + spec.name() + ")");
      }
      n.put("initializeTargetSequences", true);
    }
    return decode(spec, n, SwitchTrafficRequest::fromJson);
  }

  static CompleteRequest complete(CommandSpec spec, MigrationGroup group, boolean keepData, boolean keepRoutingRules,
      boolean renameTables, boolean dryRun, LockFlags l, JournalGraceFlag grace, VitessOnlyFlags v) {
    ObjectNode n = common(group, l);
    vitessOnly(n, v);
    n.put("keepData", keepData);
    n.put("keepRoutingRules", keepRoutingRules);
    n.put("renameTables", renameTables);
    n.put("dryRun", dryRun);
    n.put("journalGrace", grace.journalGrace);
    return decode(spec, n, CompleteRequest::fromJson);
  }

  static CancelRequest cancel(CommandSpec spec, MigrationGroup group, boolean keepData, boolean keepRoutingRules,
      boolean dryRun, LockFlags l) {
    return cancel(spec, group, keepData, keepRoutingRules, dryRun, l, new VitessOnlyFlags());
  }

  static CancelRequest cancel(CommandSpec spec, MigrationGroup group, boolean keepData, boolean keepRoutingRules,
      boolean dryRun, LockFlags l, VitessOnlyFlags v) {
    ObjectNode n = common(group, l);
    vitessOnly(n, v);
    n.put("keepData", keepData);
    n.put("keepRoutingRules", keepRoutingRules);
    n.put("dryRun", dryRun);
    return decode(spec, n, CancelRequest::fromJson);
  }

  /**
   * MirrorTraffic's input. Types and percent are sent only when given, so their defaults are the
   * decoder's (vtctldclient's); the percent must be a decimal number here, as the decoder takes a
   * JSON number only.
   */
  static MirrorTrafficRequest mirrorTraffic(CommandSpec spec, MigrationGroup group, List<String> tabletTypes,
      String percent, boolean dryRun, LockFlags l) {
    ObjectNode n = common(group, l);
    if (!tabletTypes.isEmpty()) {
      tabletTypes.forEach(n.putArray("tabletTypes")::add);
    }
    if (percent != null) {
      n.put("percent", number(spec, "--percent", percent));
    }
    n.put("dryRun", dryRun);
    return decode(spec, n, MirrorTrafficRequest::fromJson);
  }

  static ShowRequest show(CommandSpec spec, MigrationGroup group, boolean includeLogs) {
    ObjectNode n = names(group);
    n.put("view", "SHOW");
    n.put("includeLogs", includeLogs);
    return decode(spec, n, ShowRequest::fromJson);
  }

  static ShowRequest status(CommandSpec spec, MigrationGroup group) {
    ObjectNode n = names(group);
    n.put("view", "STATUS");
    return decode(spec, n, ShowRequest::fromJson);
  }

  /** The flags' name for a request field, or the field itself when it has no flag. */
  static String flagOf(String field) {
    return FLAGS.getOrDefault(field, field);
  }

  private static ObjectNode common(MigrationGroup group, LockFlags l) {
    ObjectNode n = names(group);
    n.put("lockTtl", l.lockTtl);
    n.put("maxLockHold", l.maxLockHold);
    return n;
  }

  /** Sent only when set, so a request at vtctldclient's defaults is the same JSON as before they existed. */
  private static void vitessOnly(ObjectNode n, VitessOnlyFlags v) {
    if (!v.shards.isEmpty()) {
      v.shards.forEach(n.putArray("shards")::add);
    }
    if (v.ignoreSourceKeyspace) {
      n.put("ignoreSourceKeyspace", true);
    }
  }

  private static ObjectNode names(MigrationGroup group) {
    ObjectNode n = JSON.createObjectNode();
    if (group.workflow != null) {
      n.put("workflow", group.workflow);
    }
    if (group.targetKeyspace != null) {
      n.put("targetKeyspace", group.targetKeyspace);
    }
    return n;
  }

  /** A plain decimal number ({@code 5}, {@code 0.5}, {@code 1e1}); NaN, Infinity and hex are not. */
  private static BigDecimal number(CommandSpec spec, String flag, String text) {
    try {
      return new BigDecimal(text.trim());
    } catch (NumberFormatException e) {
      throw new ParameterException(spec.commandLine(), "invalid value for " + flag + ": '" + text
          + "' is not a number", e);
    }
  }

  private static <T> T decode(CommandSpec spec, ObjectNode n, Function<ObjectNode, T> decoder) {
    try {
      return decoder.apply(n);
    } catch (InvalidRequestException e) {
      throw new ParameterException(spec.commandLine(), usageMessage(e.getMessage()), e);
    }
  }

  /** {@code SwitchTraffic input field 'timeout' must be at least 1s} → {@code invalid value for --timeout: ...}. */
  static String usageMessage(String decoderMessage) {
    Matcher m = FIELD_PROBLEM.matcher(decoderMessage);
    if (!m.matches()) {
      return decoderMessage;
    }
    String flag = flagOf(m.group(1));
    String problem = m.group(2);
    return problem.equals("is required")
        ? "missing required option " + flag
        : "invalid value for " + flag + ": " + problem;
  }
}
