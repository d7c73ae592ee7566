package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DenyTriggersTest {

  @Test
  void namesShortTablesPlainly() {
    assertThat(DenyTriggers.name("customer", DenyTriggers.Event.INSERT)).isEqualTo("pointsman_deny_customer_ins");
    assertThat(DenyTriggers.name("customer", DenyTriggers.Event.UPDATE)).isEqualTo("pointsman_deny_customer_upd");
    assertThat(DenyTriggers.name("customer", DenyTriggers.Event.DELETE)).isEqualTo("pointsman_deny_customer_del");
  }

  @Test
  void longTableNamesGetAHashedNameWithinMysqlsLimit() {
    String a = "a".repeat(60) + "_one";
    String b = "a".repeat(60) + "_two";
    String na = DenyTriggers.name(a, DenyTriggers.Event.INSERT);
    String nb = DenyTriggers.name(b, DenyTriggers.Event.INSERT);

    assertThat(na).hasSizeLessThanOrEqualTo(64).startsWith("pointsman_deny_aaaa").endsWith("_ins");
    assertThat(nb).hasSizeLessThanOrEqualTo(64);
    assertThat(na).isNotEqualTo(nb).isEqualTo(DenyTriggers.name(a, DenyTriggers.Event.INSERT));
    assertThat(DenyTriggers.name("b".repeat(64), DenyTriggers.Event.DELETE)).hasSize(64);
  }

  @Test
  void theTriggerSignalsUnlessTheSessionIsAStreamOrAnExemptUser() {
    String ddl = DenyTriggers.createStatement("vt_ks", "_vt", "t1", DenyTriggers.Event.UPDATE, Set.of("vt_filtered", "applier"));

    assertThat(ddl)
        .startsWith("CREATE TRIGGER `vt_ks`.`pointsman_deny_t1_upd` BEFORE UPDATE ON `vt_ks`.`t1` FOR EACH ROW")
        .contains("IFNULL(LENGTH(@pointsman_stream), 0) = 0")
        .contains("SUBSTRING_INDEX(USER(), '@', 1) NOT IN ('applier', 'vt_filtered')")
        .contains("SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'pointsman: writes denied on table t1'")
        // The gate: the database's drain row and the table's row, read in one statement with shared locks.
        .containsSubsequence("FROM `_vt`.`write_gate` WHERE db_name = 'vt_ks' AND table_name IN ('', 't1')"
            + " LOCK IN SHARE MODE",
            // then the group the table's row names, unless the row denies by itself
            "IF pointsman_gate = 0 AND pointsman_group <> '' THEN",
            "FROM `_vt`.`write_gate_group` WHERE db_name = 'vt_ks' AND group_name = pointsman_group LOCK IN SHARE MODE",
            "IF pointsman_gate <> 0 THEN SIGNAL");
    assertThat(DenyTriggers.isGated(ddl)).isTrue();
    assertThat(DenyTriggers.isGated(DenyTriggers.ungatedCreateStatement("vt_ks", "t1", DenyTriggers.Event.UPDATE)))
        .isFalse();
    assertThat(DenyTriggers.createStatement("vt_ks", "_vt", "t1", DenyTriggers.Event.UPDATE, Set.of())).doesNotContain("USER()");
  }

  @Test
  void theMessageFitsSignalsLimitForTheLongestTableName() {
    String ddl = DenyTriggers.createStatement("d", "_vt", "t".repeat(64), DenyTriggers.Event.INSERT, Set.of());
    int from = ddl.indexOf("MESSAGE_TEXT = '") + 16;
    String message = ddl.substring(from, ddl.indexOf("';", from));
    assertThat(message).hasSizeLessThanOrEqualTo(128);
  }

  @Test
  void refusesExemptUserNamesThatCouldEscapeTheLiteral() {
    assertThatThrownBy(() -> new WriteBarrier.Options(Set.of("x') OR ('1"), false, 2, Duration.ZERO))
        .isInstanceOf(PointsmanException.class).hasMessageContaining("exempt MySQL user name");
  }

  @Test
  void recognisesOnlyItsOwnTriggers() {
    assertThat(DenyTriggers.isOurs("pointsman_deny_t_ins", "BEGIN ... 'pointsman: writes denied on table t' ...")).isTrue();
    assertThat(DenyTriggers.isOurs("pointsman_deny_t_ins", "BEGIN SET NEW.x = 1; END")).isFalse();
    assertThat(DenyTriggers.isOurs("audit_t_ins", "... pointsman: writes denied ...")).isFalse();
  }
}
