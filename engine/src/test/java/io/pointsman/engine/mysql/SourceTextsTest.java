package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class SourceTextsTest {

  /** Parses "ks/shard" and counts its calls. */
  private static final class CountingParse implements Function<String, BinlogSource> {
    final List<String> parsed = new ArrayList<>();

    @Override
    public BinlogSource apply(String text) {
      parsed.add(text);
      String[] p = text.split("/");
      return BinlogSource.of(p[0], p[1], null);
    }
  }

  @Test
  void aTextReadAgainIsNotParsedAgainAndGivesTheSameSource() {
    SourceTexts texts = new SourceTexts(8, 1000);
    CountingParse parse = new CountingParse();

    BinlogSource first = texts.decode("commerce/0", parse);
    BinlogSource again = texts.decode(new String("commerce/0"), parse);

    assertThat(again).isSameAs(first).isEqualTo(BinlogSource.of("commerce", "0", null));
    assertThat(parse.parsed).containsExactly("commerce/0");
  }

  @Test
  void aSourceReadIsWrittenAsTheTextItWasReadFromWithoutPrinting() {
    SourceTexts texts = new SourceTexts(8, 1000);
    BinlogSource read = texts.decode("commerce/0", new CountingParse());
    List<BinlogSource> printed = new ArrayList<>();

    String text = texts.encode(BinlogSource.of("commerce", "0", null), s -> {
      printed.add(s);
      return "printed";
    });

    assertThat(text).isEqualTo("commerce/0");
    assertThat(printed).isEmpty();
    assertThat(read).isNotNull();
  }

  @Test
  void aPrintedSourceIsNotPrintedAgainAndItsTextReadsBackWithoutParsing() {
    SourceTexts texts = new SourceTexts(8, 1000);
    List<BinlogSource> printed = new ArrayList<>();
    Function<BinlogSource, String> print = s -> {
      printed.add(s);
      return s.keyspace() + "/" + s.shard();
    };
    CountingParse parse = new CountingParse();

    texts.encode(BinlogSource.of("customer", "-80", null), print);
    String again = texts.encode(BinlogSource.of("customer", "-80", null), print);
    BinlogSource read = texts.decode("customer/-80", parse);

    assertThat(again).isEqualTo("customer/-80");
    assertThat(printed).hasSize(1);
    assertThat(read).isEqualTo(BinlogSource.of("customer", "-80", null));
    assertThat(parse.parsed).isEmpty();
  }

  @Test
  void aTextThatFailsToParseIsNotKeptAndFailsAgain() {
    SourceTexts texts = new SourceTexts(8, 1000);
    List<String> tries = new ArrayList<>();
    Function<String, BinlogSource> failing = t -> {
      tries.add(t);
      throw new IllegalStateException("not a source: " + t);
    };

    assertThatThrownBy(() -> texts.decode("garbage", failing)).hasMessage("not a source: garbage");
    assertThatThrownBy(() -> texts.decode("garbage", failing)).hasMessage("not a source: garbage");

    assertThat(tries).hasSize(2);
    assertThat(texts.size()).isZero();
  }

  @Test
  void theLeastRecentlyUsedGoesFirstWhenTheEntriesAreFull() {
    SourceTexts texts = new SourceTexts(2, 1000);
    CountingParse parse = new CountingParse();
    texts.decode("a/0", parse);
    texts.decode("b/0", parse);
    texts.decode("a/0", parse); // a used last: b is the eldest now

    texts.decode("c/0", parse);
    texts.decode("a/0", parse);
    texts.decode("b/0", parse);

    assertThat(parse.parsed).containsExactly("a/0", "b/0", "c/0", "b/0");
    assertThat(texts.size()).isEqualTo(2);
  }

  @Test
  void textsAreDroppedOnceTheirCharactersExceedTheBound() {
    SourceTexts texts = new SourceTexts(100, 10);
    CountingParse parse = new CountingParse();
    texts.decode("ks1/-80", parse); // 7 characters
    texts.decode("ks2/80-", parse); // 14 in all: ks1 goes

    texts.decode("ks2/80-", parse);
    texts.decode("ks1/-80", parse);

    assertThat(parse.parsed).containsExactly("ks1/-80", "ks2/80-", "ks1/-80");
    assertThat(texts.size()).isEqualTo(1);
  }

  @Test
  void boundsMustBePositive() {
    assertThatThrownBy(() -> new SourceTexts(0, 10)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 entries");
  }
}
