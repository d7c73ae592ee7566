package io.pointsman.api.names;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ShownTest {
  @Test
  void controlsBidiAndSeparatorsAreEscaped() {
    assertThat(Shown.text("a\u001b[31mb\nc\u009bd\u202ee\u2028f\u0000")).isEqualTo(
        "a\\u001b[31mb\\u000ac\\u009bd\\u202ee\\u2028f\\u0000");
  }

  @Test
  void markupQuotesAndOtherScriptsAreShownAsTheyAre() {
    String s = "<script>alert(1)</script> ' \" ` $(x) 日本 \uD83D\uDE00";
    assertThat(Shown.text(s)).isEqualTo(s);
  }

  @Test
  void longTextIsCutSayingHowMuchIsLeftOut() {
    assertThat(Shown.text("x".repeat(1_000_000), 10)).isEqualTo("xxxxxxxxxx...(999990 more characters)");
  }

  @Test
  void aSurrogatePairIsNeverSplitAndALoneOneIsEscaped() {
    assertThat(Shown.text("ab\uD83D\uDE00", 3)).isEqualTo("ab...(2 more characters)");
    assertThat(Shown.text("a\uD800b")).isEqualTo("a\\ud800b");
    assertThat(Shown.text(null)).isEqualTo("null");
  }

  @Test
  void aShortListIsShownWhole() {
    assertThat(Shown.list(List.of("corder", "customer"))).isEqualTo("[corder, customer]");
    assertThat(Shown.list(IntStream.rangeClosed(1, 10).boxed().toList())).isEqualTo("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]");
  }

  @Test
  void aLongListShowsItsFirstFiveItsLastAndItsSize() {
    assertThat(Shown.list(IntStream.rangeClosed(1, 1000).mapToObj(i -> String.format("t%04d", i)).toList()))
        .isEqualTo("[t0001, t0002, t0003, t0004, t0005, ..., t1000] (1000 in all)");
    assertThat(Shown.list(IntStream.rangeClosed(1, 11).boxed().toList())).isEqualTo("[1, 2, 3, 4, 5, ..., 11] (11 in all)");
  }

  @Test
  void joinedIsTheListWithoutItsBrackets() {
    assertThat(Shown.joined(List.of("t"))).isEqualTo("t");
    assertThat(Shown.joined(List.of("corder", "customer"))).isEqualTo("corder, customer");
    assertThat(Shown.joined(IntStream.rangeClosed(1, 11).boxed().toList())).isEqualTo("1, 2, 3, 4, 5, ..., 11 (11 in all)");
  }
}
