package io.pointsman.engine.switching;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.mysql.BinlogSource;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StreamFiltersTest {

  @ParameterizedTest(name = "{0} → {2}")
  @CsvSource(delimiter = '|', value = {
      "-80 | 40-80 | 40-80",
      "- | -80 | -80",
      "select pid, name from product where in_keyrange(pid, 'customer.hash', '-') | 80- |"
          + " select pid, name from product where in_keyrange(pid, 'customer.hash', '80-')",
      "select * from t where in_keyrange('-80') | 40-80 | select * from t where in_keyrange('40-80')",
      "SELECT * FROM t WHERE x = 'a)b' AND IN_KEYRANGE(id, 'xxhash', '80-') AND y = 1 | -40 |"
          + " SELECT * FROM t WHERE x = 'a)b' AND IN_KEYRANGE(id, 'xxhash', '-40') AND y = 1",
      "select * from t where in_keyrange(concat(a, 'x'), 'hash', '-80' ) | 80- |"
          + " select * from t where in_keyrange(concat(a, 'x'), 'hash', '80-' )",
  })
  void theKeyRangeIsReplacedAndNothingElse(String filter, String keyRange, String expected) {
    BinlogSource.Rule rule = new BinlogSource.Rule("t", filter);
    assertThat(StreamFilters.problem(rule)).isEmpty();
    assertThat(StreamFilters.retarget(rule, keyRange).filter()).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{index}: {1}")
  @CsvSource(delimiter = '|', value = {
      "'' | has no select expression",
      "exclude | is an exclude rule",
      "select * from t | has no in_keyrange(...)",
      "select * from t where in_keyrange(id, 'hash', '-80') or in_keyrange(id, 'hash', '80-') | has 2 calls of",
      "select * from t where in_keyrange(id, 'hash', @kr) | does not end with a quoted key range",
      "select * from t where name = '{{x}}' and in_keyrange('-80') | has '{{' in its filter",
      "t.id > 5 | neither a key range nor a select",
  })
  void whatCannotBeRetargetedIsSaid(String filter, String why) {
    assertThat(StreamFilters.problem(new BinlogSource.Rule("t", filter))).hasValueSatisfying(p ->
        assertThat(p).startsWith("rule t").contains(why));
  }

  @Test
  void theRulesOtherFieldsStayAsTheyWere() {
    BinlogSource.Rule rule = new BinlogSource.Rule("t", "select * from t where in_keyrange('-')",
        Map.of("status", "a,b"), Map.of("name", new BinlogSource.CharsetConversion("latin1", "utf8mb4")), "id", "id2",
        "id3", Map.of("flag", true), "PRIMARY");
    BinlogSource.Rule moved = StreamFilters.retarget(rule, "-80");
    assertThat(moved).isEqualTo(rule.withFilter("select * from t where in_keyrange('-80')"));
    assertThat(moved.convertCharset()).isEqualTo(rule.convertCharset());
    assertThat(moved.forceUniqueKey()).isEqualTo("PRIMARY");
  }
}
