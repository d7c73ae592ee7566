package io.pointsman.sandbox.cluster;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * Reads and writes {@code sandbox-state.json} in the data folder. Writes go to a temporary file
 * that is then renamed, so a reader never sees half a document.
 */
public final class SandboxStateFile {
  public static final String FILE_NAME = "sandbox-state.json";

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(SerializationFeature.INDENT_OUTPUT)
      // A file written by a newer pointsman must still let an older one stop the servers it lists.
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .build();

  private final Path file;

  public SandboxStateFile(Path dataDir) {
    this.file = dataDir.toAbsolutePath().normalize().resolve(FILE_NAME);
  }

  public Path path() {
    return file;
  }

  public Optional<SandboxState> read() {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(MAPPER.readValue(file.toFile(), SandboxState.class));
    } catch (IOException e) {
      throw new PointsmanException(ErrorCode.FAILED_PRECONDITION,
          "sandbox state file " + file + " is unreadable: " + e.getMessage(), e);
    }
  }

  public void write(SandboxState state) {
    Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
    try {
      Files.createDirectories(file.getParent());
      MAPPER.writeValue(tmp.toFile(), state);
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new PointsmanException(ErrorCode.FAILED_PRECONDITION,
          "cannot write sandbox state file " + file + ": " + e.getMessage(), e);
    }
  }

  public void delete() {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new PointsmanException(ErrorCode.FAILED_PRECONDITION,
          "cannot delete sandbox state file " + file + ": " + e.getMessage(), e);
    }
  }
}
