package io.pointsman.engine.switching;

import static io.pointsman.api.model.TabletType.PRIMARY;
import static io.pointsman.api.model.TabletType.RDONLY;
import static io.pointsman.api.model.TabletType.REPLICA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.MirrorRule;
import io.pointsman.engine.topo.model.MirrorRules;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * vtctldclient MirrorTraffic's pure edit of the global mirror rules (Vitess's mirrorTableTraffic):
 * per moved table and tablet type, the rule from {@code source.t[@type]} to {@code target.t} set to
 * the percent or, at 0, removed; refused while only some of those rules exist; any other rule kept.
 */
class MirrorTrafficEditsTest {
  private static final List<String> TABLES = List.of("customer", "corder");
  private static final List<TabletType> ALL = List.of(PRIMARY, REPLICA, RDONLY);
  /** Another workflow's: same source tables, another target keyspace. */
  private static final MirrorRule ELSEWHERE_REPLICA = new MirrorRule("commerce.customer@replica", "other.customer", 7);
  private static final MirrorRule ELSEWHERE_PRIMARY = new MirrorRule("commerce.customer", "other.customer", 3);
  /** A table the workflow does not move. */
  private static final MirrorRule PRODUCT = new MirrorRule("commerce.product", "customer.product", 10);

  private static MirrorRules mirror(MirrorRules rules, List<TabletType> types, float percent) {
    return MirrorRuleEdits.mirror(rules, TABLES, types, percent, "commerce", "customer");
  }

  private static MirrorRule rule(String table, TabletType type, float percent) {
    return new MirrorRule("commerce." + table + type.ruleSuffix(), "customer." + table, percent);
  }

  /** The workflow's rules for {@code types}, table by table, each type in the order given. */
  private static List<MirrorRule> workflowRules(List<TabletType> types, float percent) {
    List<MirrorRule> out = new ArrayList<>();
    for (String t : TABLES) {
      for (TabletType type : types) {
        out.add(rule(t, type, percent));
      }
    }
    return out;
  }

  @Test
  void mirroringAddsOneRulePerTableAndTypeAfterTheRulesThereAre() {
    MirrorRules before = new MirrorRules(List.of(ELSEWHERE_REPLICA, PRODUCT));

    MirrorRules after = mirror(before, ALL, 5);

    List<MirrorRule> expected = new ArrayList<>(List.of(ELSEWHERE_REPLICA, PRODUCT));
    expected.addAll(List.of(rule("customer", PRIMARY, 5), rule("customer", REPLICA, 5), rule("customer", RDONLY, 5),
        rule("corder", PRIMARY, 5), rule("corder", REPLICA, 5), rule("corder", RDONLY, 5)));
    assertThat(after.rules()).containsExactlyElementsOf(expected);
    assertThat(after.rules()).extracting(MirrorRule::fromTable).contains("commerce.customer", "commerce.corder@replica",
        "commerce.corder@rdonly").doesNotContain("commerce.customer@primary");
    assertThat(after.mirrorsAny(TABLES, "commerce", "customer")).isTrue();
    assertThat(before.rules()).as("the input is not edited").containsExactly(ELSEWHERE_REPLICA, PRODUCT);
  }

  @Test
  void mirroringOnlyTheReadsAddsNoPrimaryRule() {
    MirrorRules after = mirror(MirrorRules.EMPTY, List.of(REPLICA), 50);

    assertThat(after.rules()).containsExactly(rule("customer", REPLICA, 50), rule("corder", REPLICA, 50));
    assertThat(after.mirrors(TABLES, List.of(PRIMARY), "commerce", "customer")).isFalse();
    assertThat(after.mirrors(TABLES, List.of(REPLICA), "commerce", "customer")).isTrue();
  }

  @Test
  void mirroringAgainReplacesEachPercentWhereItStandsAndIsIdempotent() {
    MirrorRules before = new MirrorRules(List.of(rule("customer", REPLICA, 5), PRODUCT, rule("corder", REPLICA, 5),
        ELSEWHERE_REPLICA, rule("customer", PRIMARY, 1)));

    MirrorRules after = mirror(before, List.of(REPLICA), 25.5f);

    assertThat(after.rules()).containsExactly(rule("customer", REPLICA, 25.5f), PRODUCT, rule("corder", REPLICA, 25.5f),
        ELSEWHERE_REPLICA, rule("customer", PRIMARY, 1));
    assertThat(mirror(after, List.of(REPLICA), 25.5f)).isEqualTo(after);
  }

  @Test
  void percentZeroRemovesOnlyTheWorkflowsOwnRulesOfThoseTypes() {
    List<MirrorRule> rules = new ArrayList<>(List.of(ELSEWHERE_PRIMARY, ELSEWHERE_REPLICA, PRODUCT));
    rules.addAll(workflowRules(ALL, 5));
    MirrorRules before = new MirrorRules(rules);

    MirrorRules after = mirror(before, List.of(REPLICA, RDONLY), 0);

    // unlike a read switch (MirrorRuleEdits.removeSwitched), only the (from, to) pair goes: another
    // workflow's rule from the same source table to another keyspace stays
    assertThat(after.rules()).containsExactly(ELSEWHERE_PRIMARY, ELSEWHERE_REPLICA, PRODUCT,
        rule("customer", PRIMARY, 5), rule("corder", PRIMARY, 5));
    MirrorRules none = mirror(after, List.of(PRIMARY), 0);
    assertThat(none.rules()).containsExactly(ELSEWHERE_PRIMARY, ELSEWHERE_REPLICA, PRODUCT);
    assertThat(none.mirrorsAny(TABLES, "commerce", "customer")).isFalse();
  }

  @Test
  void percentZeroOfTheLastRulesLeavesNoRuleAndOfRulesThatDoNotExistChangesNothing() {
    assertThat(mirror(new MirrorRules(workflowRules(ALL, 5)), ALL, 0).rules()).isEmpty();
    MirrorRules others = new MirrorRules(List.of(ELSEWHERE_REPLICA, PRODUCT));
    assertThat(mirror(others, ALL, 0)).isEqualTo(others);
    assertThat(mirror(MirrorRules.EMPTY, ALL, 0)).isEqualTo(MirrorRules.EMPTY);
  }

  @ParameterizedTest(name = "percent {0}")
  @ValueSource(floats = {0, 5, 100})
  void aPartialSetOfTheWorkflowsRulesIsRefusedAsAlreadyExistsAndTheInputIsUnchanged(float percent) {
    // 3 of the 4 rules of (customer, corder) x (REPLICA, RDONLY) exist
    List<MirrorRule> rules = List.of(rule("customer", REPLICA, 5), PRODUCT, rule("customer", RDONLY, 5),
        rule("corder", REPLICA, 5), ELSEWHERE_REPLICA);
    MirrorRules before = new MirrorRules(rules);

    assertThatThrownBy(() -> mirror(before, List.of(REPLICA, RDONLY), percent))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS))
        .hasMessageStartingWith("wrong number of pre-existing mirror rules: 3 of the 4 rules from commerce to customer")
        .hasMessageContaining("Nothing was changed");
    assertThat(before.rules()).containsExactlyElementsOf(rules);
  }

  @Test
  void onlyTheTypesAskedForAndTheTargetKeyspaceCountAsPreExisting() {
    // the PRIMARY rules exist, the REPLICA ones do not: mirroring REPLICA alone is no partial set
    MirrorRules primaries = new MirrorRules(List.of(rule("customer", PRIMARY, 5), rule("corder", PRIMARY, 5)));
    assertThat(mirror(primaries, List.of(REPLICA), 5).rules()).containsExactly(rule("customer", PRIMARY, 5),
        rule("corder", PRIMARY, 5), rule("customer", REPLICA, 5), rule("corder", REPLICA, 5));
    // but together with PRIMARY it is: 2 of 4
    assertThatThrownBy(() -> mirror(primaries, List.of(PRIMARY, REPLICA), 5))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS))
        .hasMessageStartingWith("wrong number of pre-existing mirror rules: 2 of the 4");
    // a rule from a moved table to another keyspace is not one of the workflow's
    MirrorRules elsewhere = new MirrorRules(List.of(ELSEWHERE_REPLICA));
    assertThat(mirror(elsewhere, List.of(REPLICA), 5).rules()).containsExactly(ELSEWHERE_REPLICA,
        rule("customer", REPLICA, 5), rule("corder", REPLICA, 5));
  }
}
