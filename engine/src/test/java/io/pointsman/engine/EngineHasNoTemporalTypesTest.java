package io.pointsman.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine is the layer beneath the activities: locks, topology, MySQL, switching, validation. It
 * must be usable without Temporal (the validator CLI, the bench's direct executor), so no source of
 * it may name a Temporal type; the activities module is where Temporal meets the engine.
 */
class EngineHasNoTemporalTypesTest {
  @Test
  void noEngineSourceImportsTemporal() throws IOException {
    Path sources = Path.of("src/main/java/io/pointsman/engine");
    assertThat(sources).isDirectory();
    List<String> offenders;
    try (Stream<Path> files = Files.walk(sources)) {
      offenders = files.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> read(p).contains("io.temporal."))
          .map(Path::toString)
          .toList();
    }
    assertThat(offenders).as("engine sources that name a Temporal type").isEmpty();
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
