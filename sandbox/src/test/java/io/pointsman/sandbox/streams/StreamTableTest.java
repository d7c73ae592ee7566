package io.pointsman.sandbox.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class StreamTableTest {
  @Test
  void messagesAreCutToTheColumnsBytesWithoutSplittingACharacter() {
    assertThat(StreamTable.truncate("short")).isEqualTo("short");
    String ascii = "x".repeat(2000);
    assertThat(StreamTable.truncate(ascii)).hasSize(StreamTable.MAX_MESSAGE);
    String wide = "\u00e9".repeat(600) + "\ud83d\ude00".repeat(100);
    String cut = StreamTable.truncate(wide);
    assertThat(cut.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(StreamTable.MAX_MESSAGE);
    assertThat(wide).startsWith(cut);
    assertThat(Character.isHighSurrogate(cut.charAt(cut.length() - 1))).isFalse();
    assertThat(StreamTable.truncate(null)).isEmpty();
  }
}
