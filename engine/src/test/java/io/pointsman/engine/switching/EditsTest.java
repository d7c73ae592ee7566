package io.pointsman.engine.switching;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.MirrorRule;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.ShardTabletControl;
import io.pointsman.engine.topo.model.SrvKeyspace;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The pure routing-rule and SrvKeyspace edits of a switch, as tables of before and after. */
class EditsTest {
  private static final List<String> TABLES = List.of("customer");

  private static RoutingRules rules(String... fromTo) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    for (int i = 0; i < fromTo.length; i += 2) {
      m.put(fromTo[i], List.of(fromTo[i + 1]));
    }
    return RoutingRules.fromMap(m);
  }

  /** The rules MoveTables creates: everything to the source. */
  private static final RoutingRules CREATED = rules(
      "customer", "commerce.customer", "commerce.customer", "commerce.customer", "customer.customer", "commerce.customer",
      "customer@replica", "commerce.customer", "commerce.customer@replica", "commerce.customer",
      "customer.customer@replica", "commerce.customer",
      "customer@rdonly", "commerce.customer", "commerce.customer@rdonly", "commerce.customer",
      "customer.customer@rdonly", "commerce.customer");

  static Stream<Arguments> readSwitches() {
    return Stream.of(
        Arguments.of(TabletType.REPLICA, "customer", true, false),
        Arguments.of(TabletType.RDONLY, "customer", false, true),
        Arguments.of(TabletType.REPLICA, "commerce", false, false));
  }

  @ParameterizedTest(name = "{0} reads to {1}")
  @MethodSource("readSwitches")
  void switchingReadsRoutesOnlyThatType(TabletType type, String to, boolean replicaSwitched, boolean rdonlySwitched) {
    RoutingRules after = RoutingRuleEdits.switchReads(CREATED, TABLES, type, "commerce", "customer", to);

    assertThat(RoutingRuleEdits.readsSwitched(after, TABLES, TabletType.REPLICA, "commerce")).isEqualTo(replicaSwitched);
    assertThat(RoutingRuleEdits.readsSwitched(after, TABLES, TabletType.RDONLY, "commerce")).isEqualTo(rdonlySwitched);
    assertThat(RoutingRuleEdits.writesSwitched(after, TABLES, "commerce")).isFalse();
    assertThat(after.asMap().get("commerce.customer" + type.ruleSuffix())).containsExactly(to + ".customer");
  }

  @Test
  void switchingWritesRoutesTheTableAndItsSourceNameToTheTargetAndIsIdempotent() {
    RoutingRules once = RoutingRuleEdits.switchWrites(CREATED, TABLES, "commerce", "customer");
    Map<String, List<String>> m = once.asMap();

    assertThat(m.get("customer")).containsExactly("customer.customer");
    assertThat(m.get("commerce.customer")).containsExactly("customer.customer");
    assertThat(m).doesNotContainKey("customer.customer");
    assertThat(RoutingRuleEdits.writesSwitched(once, TABLES, "commerce")).isTrue();
    assertThat(RoutingRuleEdits.switchWrites(once, TABLES, "commerce", "customer")).isEqualTo(once);
  }

  @Test
  void deletingRemovesTheNineRulesOfEachTableAndKeepsOthers() {
    RoutingRules withOther = RoutingRules.fromMap(new LinkedHashMap<>(Map.of("other", List.of("commerce.other"))));
    Map<String, List<String>> all = new LinkedHashMap<>(CREATED.asMap());
    all.putAll(withOther.asMap());

    RoutingRules after = RoutingRuleEdits.delete(RoutingRules.fromMap(all), TABLES, "commerce", "customer");

    assertThat(after).isEqualTo(withOther);
  }

  private static SrvKeyspace unsharded(TabletType... types) {
    return new SrvKeyspace(Stream.of(types).map(t -> new KeyspacePartition(t,
        List.of(new ShardReference("0", KeyRange.ofShard("0"))), List.of())).toList());
  }

  private static List<String> served(SrvKeyspace srv, TabletType type) {
    return srv.partition(type).orElseThrow().shardReferences().stream().map(ShardReference::name).toList();
  }

  static Stream<Arguments> migrations() {
    return Stream.of(
        Arguments.of(TabletType.REPLICA, List.of("-80", "80-"), List.of("0"), List.of("-80", "80-"), List.of("0")),
        Arguments.of(TabletType.PRIMARY, List.of("-80", "80-"), List.of("0"), List.of("0"), List.of("-80", "80-")),
        Arguments.of(TabletType.REPLICA, List.of("0"), List.of("-80", "80-"), List.of("0"), List.of("0")));
  }

  @ParameterizedTest(name = "{0}: add {1}, remove {2}")
  @MethodSource("migrations")
  void migratingAServedTypeMovesOnlyItsReferencesInKeyRangeOrder(TabletType type, List<String> add,
      List<String> remove, List<String> replicaAfter, List<String> primaryAfter) {
    SrvKeyspace after = SrvKeyspaceEdits.migrateServedType(unsharded(TabletType.PRIMARY, TabletType.REPLICA), type,
        add, remove);

    assertThat(served(after, TabletType.REPLICA)).isEqualTo(replicaAfter);
    assertThat(served(after, TabletType.PRIMARY)).isEqualTo(primaryAfter);
  }

  @Test
  void queryServiceControlsAreSetPerTypeAndIdleOnesDropped() {
    SrvKeyspace disabled = SrvKeyspaceEdits.setQueryServiceDisabled(unsharded(TabletType.REPLICA, TabletType.RDONLY),
        TabletType.REPLICA, List.of("0"), true);

    assertThat(disabled.partition(TabletType.REPLICA).orElseThrow().shardTabletControls())
        .containsExactly(new ShardTabletControl("0", KeyRange.ofShard("0"), true));
    assertThat(disabled.partition(TabletType.RDONLY).orElseThrow().shardTabletControls()).isEmpty();
    assertThat(SrvKeyspaceEdits.readsSwitched(disabled, TabletType.REPLICA, "0")).isTrue();
    assertThat(SrvKeyspaceEdits.readsSwitched(disabled, TabletType.RDONLY, "0")).isFalse();
    // a control that disables a referenced shard is kept; one that enables it changes nothing and goes
    assertThat(SrvKeyspaceEdits.dropIdleTabletControls(disabled, List.of("0"))).isEqualTo(disabled);
    SrvKeyspace enabled = SrvKeyspaceEdits.setQueryServiceDisabled(disabled, TabletType.REPLICA, List.of("0"), false);
    assertThat(SrvKeyspaceEdits.dropIdleTabletControls(enabled, List.of("0")).partition(TabletType.REPLICA)
        .orElseThrow().shardTabletControls()).isEmpty();
  }

  @Test
  void aSwitchDropsTheSourceTablesMirrorEntryOnlyWhenItMirrorsToTheTarget() {
    MirrorRules rules = new MirrorRules(List.of(
        new MirrorRule("commerce.customer@replica", "customer.customer", 50),
        new MirrorRule("commerce.customer@replica", "other.customer", 5),
        new MirrorRule("commerce.corder@replica", "other.corder", 5),
        new MirrorRule("commerce.customer", "customer.customer", 10)));
    MirrorRules after = MirrorRuleEdits.removeSwitched(rules, List.of("customer", "corder"),
        List.of(TabletType.REPLICA), "commerce", "customer");
    // the whole entry of commerce.customer@replica goes, as Vitess deletes it; corder's mirrors elsewhere
    assertThat(after.rules()).containsExactly(new MirrorRule("commerce.corder@replica", "other.corder", 5),
        new MirrorRule("commerce.customer", "customer.customer", 10));
    assertThat(MirrorRuleEdits.removeSwitched(after, List.of("customer"), List.of(TabletType.PRIMARY), "commerce",
        "customer").rules()).containsExactly(new MirrorRule("commerce.corder@replica", "other.corder", 5));
    assertThat(MirrorRuleEdits.removeSwitched(rules, List.of("customer"), List.of(TabletType.RDONLY), "commerce",
        "customer")).isSameAs(rules);
  }

  @Test
  void theTablesAreStillMirroredWhileAnyTypeOfOneOfThemMirrorsToTheTarget() {
    MirrorRules elsewhere = new MirrorRules(List.of(new MirrorRule("commerce.customer@replica", "other.customer", 5),
        new MirrorRule("commerce.product", "customer.product", 5),
        new MirrorRule("customer.customer", "commerce.customer", 5)));
    assertThat(elsewhere.mirrorsAny(List.of("customer", "corder"), "commerce", "customer")).isFalse();
    for (MirrorRule rule : List.of(new MirrorRule("commerce.corder", "customer.corder", 1),
        new MirrorRule("commerce.corder@replica", "customer.corder", 1),
        new MirrorRule("commerce.customer@rdonly", "customer.customer", 1))) {
      assertThat(new MirrorRules(List.of(rule)).mirrorsAny(List.of("customer", "corder"), "commerce", "customer"))
          .as(rule.fromTable()).isTrue();
    }
    assertThat(MirrorRules.EMPTY.mirrorsAny(List.of("customer"), "commerce", "customer")).isFalse();
    MirrorRules primary = new MirrorRules(List.of(new MirrorRule("commerce.customer", "customer.customer", 1)));
    assertThat(primary.mirrors(List.of("customer"), List.of(TabletType.REPLICA, TabletType.RDONLY), "commerce",
        "customer")).as("reads mirrored").isFalse();
    assertThat(primary.mirrors(List.of("customer"), List.of(TabletType.PRIMARY), "commerce", "customer"))
        .as("writes mirrored").isTrue();
  }

  @Test
  void onlyThePrimaryControlsAllowReadsChangesAndAShardWithoutOneStaysAsItIs() {
    Shard shard = Shard.of(KeyRange.ofShard("-80"), TabletAlias.parse("zone1-0000000200"), true)
        .withDeniedTables(TabletType.PRIMARY, List.of("customer"), false)
        .withDeniedTables(TabletType.REPLICA, List.of("customer"), false);
    Shard allowed = shard.withPrimaryAllowReads(true);
    assertThat(allowed.tabletControl(TabletType.PRIMARY).orElseThrow().allowReads()).isTrue();
    assertThat(allowed.tabletControl(TabletType.REPLICA).orElseThrow().allowReads()).isFalse();
    // a change of the denied tables keeps it
    assertThat(allowed.withDeniedTables(TabletType.PRIMARY, List.of("corder"), false)
        .tabletControl(TabletType.PRIMARY).orElseThrow().allowReads()).isTrue();
    assertThat(allowed.withPrimaryAllowReads(false)).isEqualTo(shard);
    Shard none = Shard.of(KeyRange.ofShard("80-"), TabletAlias.parse("zone1-0000000300"), true);
    assertThat(none.withPrimaryAllowReads(true)).isEqualTo(none);
  }

  /** One lookup without the map: the same answer as asMap, the last of duplicate rules included. */
  @Test
  void targetsOfAnswersAsTheMapDoesForEveryRuleAndForNone() {
    RoutingRules stored = new RoutingRules(List.of(
        new io.pointsman.engine.topo.model.RoutingRule("customer", List.of("commerce.customer")),
        new io.pointsman.engine.topo.model.RoutingRule("commerce.customer", List.of("commerce.customer")),
        new io.pointsman.engine.topo.model.RoutingRule("customer", List.of("customer.customer"))));

    for (String from : List.of("customer", "commerce.customer", "customer@replica")) {
      assertThat(stored.targetsOf(from)).as(from).isEqualTo(stored.asMap().get(from));
    }
    assertThat(stored.targetsOf("customer")).containsExactly("customer.customer");
    assertThat(stored.targetsOf("customer@replica")).isNull();
  }
}
