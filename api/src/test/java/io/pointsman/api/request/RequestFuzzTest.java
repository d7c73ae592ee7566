package io.pointsman.api.request;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Every field of every workflow input, fed wrong types, empty values, 100 KB strings and hostile
 * strings (quotes, backticks, slashes, {@code ../}, unicode, control characters, SQL fragments),
 * generated from a fixed seed: each must be refused while decoding, through Jackson as Temporal's
 * JSON converter decodes it, with one short printable message that names the field.
 */
class RequestFuzzTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final long SEED = 20261202L;
  private static final int GENERATED_PER_FIELD = 60;
  private static final int HUGE = 100 * 1024;
  /** A message a person reads in the Temporal UI: one line, not an echo of a 100 KB value. */
  private static final int MAX_MESSAGE = 600;

  private static final List<String> HOSTILE_FRAGMENTS = List.of("'", "\"", "`", "/", "\\", "../", "../../etc/passwd",
      "' OR '1'='1", "`; DROP TABLE _vt.vreplication; --", "\"); DELETE FROM t; --", "/*", "*/", "\u0000", "\n",
      "\r\n", "\t", "\u001b[31m", "\u007f", "é", "日本", "\uD83D\uDE00", "\u202e", "\uFEFF", "%00", "${jndi:x}",
      "{{x}}", " ", ",", ";", "#", "locks/", "/vitess/global", "0x80");

  private enum Kind { NAME, NAME_LIST, TABLET_TYPES, DURATION, BOOL }

  private record Field(String name, Kind kind, boolean required) {}

  private record Target(Class<?> type, List<Field> fields) {}

  private static final List<Field> COMMON = List.of(new Field("workflow", Kind.NAME, true),
      new Field("targetKeyspace", Kind.NAME, true), new Field("dryRun", Kind.BOOL, false),
      new Field("lockTtl", Kind.DURATION, false), new Field("maxLockHold", Kind.DURATION, false));

  private static final List<Target> TARGETS = List.of(
      new Target(SwitchTrafficRequest.class, concat(COMMON, new Field("tabletTypes", Kind.TABLET_TYPES, false),
          new Field("cells", Kind.NAME_LIST, false), new Field("timeout", Kind.DURATION, false),
          new Field("maxReplicationLagAllowed", Kind.DURATION, false),
          new Field("enableReverseReplication", Kind.BOOL, false))),
      new Target(CompleteRequest.class, concat(COMMON, new Field("keepData", Kind.BOOL, false),
          new Field("keepRoutingRules", Kind.BOOL, false), new Field("renameTables", Kind.BOOL, false))),
      new Target(CancelRequest.class, concat(COMMON, new Field("keepData", Kind.BOOL, false),
          new Field("keepRoutingRules", Kind.BOOL, false))),
      // percent, the one number field, has its own cases in MirrorTrafficRequestTest
      new Target(MirrorTrafficRequest.class, concat(COMMON, new Field("tabletTypes", Kind.TABLET_TYPES, false))));

  @Test
  void everyBadValueOfEveryFieldIsRefusedNamingTheField() {
    Random random = new Random(SEED);
    int cases = 0;
    List<String> escaped = new ArrayList<>();
    for (Target target : TARGETS) {
      for (Field field : target.fields()) {
        for (JsonNode bad : badValues(field, random)) {
          ObjectNode input = valid();
          input.set(field.name(), bad);
          String problem = problem(input, target.type());
          cases++;
          if (problem == null) {
            escaped.add(target.type().getSimpleName() + "." + field.name() + " accepted " + clip(bad.toString()));
            continue;
          }
          String where = target.type().getSimpleName() + "." + field.name() + " = " + clip(bad.toString());
          assertThat(problem).as(where).contains("'" + field.name() + "'");
          assertThat(problem.length()).as(where + ": message length").isLessThan(MAX_MESSAGE);
          assertThat(problem).as(where + ": message is printable").doesNotContainPattern("\\p{Cntrl}");
        }
      }
    }
    assertThat(escaped).as("bad values that decoded").isEmpty();
    assertThat(cases).isGreaterThan(1000);
  }

  @Test
  void misspelledAndSmuggledFieldsAreRefusedByName() {
    for (Target target : TARGETS) {
      for (String extra : List.of("workFlow", "target_keyspace", "dry_run", "__proto__", "../workflow",
          "x".repeat(40_000), "a\u0000b")) {
        ObjectNode input = valid();
        input.put(extra, "commerce2customer");
        String problem = problem(input, target.type());
        assertThat(problem).as(target.type().getSimpleName() + " with " + clip(extra)).isNotNull()
            .contains("unknown field").doesNotContainPattern("\\p{Cntrl}");
        assertThat(problem.length()).isLessThan(MAX_MESSAGE);
      }
    }
  }

  @Test
  void aFieldNameOfOneHundredKilobytesIsRefusedByTheParser() {
    ObjectNode input = valid();
    input.put("x".repeat(HUGE), "commerce2customer");
    assertThat(problem(input, SwitchTrafficRequest.class)).contains("Name length");
  }

  @Test
  void inputsThatAreNotOneObjectAreRefused() {
    for (Target target : TARGETS) {
      for (JsonNode whole : List.of(NODES.textNode("commerce2customer"), NODES.numberNode(1),
          NODES.arrayNode().add(valid()), NODES.booleanNode(true))) {
        assertThat(problem(whole, target.type())).as(target.type().getSimpleName() + " from " + whole)
            .isNotNull();
      }
    }
  }

  private static List<JsonNode> badValues(Field field, Random random) {
    List<JsonNode> out = new ArrayList<>();
    // wrong types
    out.add(NODES.numberNode(42));
    out.add(NODES.numberNode(-1.5));
    out.add(NODES.objectNode().put("value", "x"));
    if (field.kind() != Kind.NAME_LIST && field.kind() != Kind.TABLET_TYPES) {
      out.add(NODES.arrayNode().add("commerce2customer"));
    }
    if (field.kind() != Kind.BOOL) {
      out.add(NODES.booleanNode(true));
    } else {
      out.add(NODES.textNode("true"));
      out.add(NODES.textNode("yes"));
      out.add(NODES.numberNode(1));
    }
    if (field.required()) {
      out.add(NODES.nullNode());
    }
    // empty (an empty list, or "" for a list, means the default, as vtctldclient's empty flag)
    switch (field.kind()) {
      case NAME, DURATION, BOOL -> out.add(NODES.textNode(""));
      case NAME_LIST, TABLET_TYPES -> out.add(NODES.arrayNode().add(""));
    }
    // huge
    out.add(text(field, "a".repeat(HUGE)));
    out.add(text(field, "1".repeat(HUGE) + "s"));
    // hostile, generated
    for (int i = 0; i < GENERATED_PER_FIELD; i++) {
      out.add(text(field, hostile(random)));
    }
    if (field.kind() == Kind.DURATION) {
      out.add(NODES.textNode("-30s"));
      out.add(NODES.textNode("30 s; DROP"));
      out.add(NODES.textNode("P1D'"));
    }
    return out;
  }

  /** A string value in the field's own shape: a list field gets it as one element. */
  private static JsonNode text(Field field, String s) {
    return switch (field.kind()) {
      case NAME_LIST, TABLET_TYPES -> NODES.arrayNode().add("REPLICA").add(s);
      default -> NODES.textNode(s);
    };
  }

  /** A plausible value wrapped around at least one hostile fragment. */
  private static String hostile(Random random) {
    String[] plausible = {"commerce2customer", "customer", "30s", "PRIMARY", "zone1", "", "true"};
    StringBuilder sb = new StringBuilder(plausible[random.nextInt(plausible.length)]);
    int fragments = 1 + random.nextInt(3);
    for (int i = 0; i < fragments; i++) {
      String f = HOSTILE_FRAGMENTS.get(random.nextInt(HOSTILE_FRAGMENTS.size()));
      sb.insert(random.nextInt(sb.length() + 1), f);
    }
    String s = sb.toString();
    // whitespace around a valid value is trimmed on purpose (a pasted "30s "), so make sure at
    // least one visible hostile character is in it
    return s.strip().chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '-') ? s + "'" : s;
  }

  private static ObjectNode valid() {
    ObjectNode o = NODES.objectNode();
    o.put("workflow", "commerce2customer");
    o.put("targetKeyspace", "customer");
    return o;
  }

  /** The decoding problem, or null when the input decoded. */
  private static String problem(JsonNode input, Class<?> type) {
    return DecodeProblems.of(input.toString(), type);
  }

  private static String clip(String s) {
    String p = s.length() > 60 ? s.substring(0, 60) + "..." : s;
    return p.replaceAll("\\p{Cntrl}", "?");
  }

  @SafeVarargs
  private static <T> List<T> concat(List<T> base, T... more) {
    List<T> out = new ArrayList<>(base);
    out.addAll(List.of(more));
    return List.copyOf(out);
  }
}
