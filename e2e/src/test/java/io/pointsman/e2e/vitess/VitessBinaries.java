package io.pointsman.e2e.vitess;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Vitess 24 binaries {@code scripts/vitess.sh} builds and {@code scripts/test.sh} exports as
 * {@code POINTSMAN_VITESS_BIN}. Tests that need them fail, never skip, when they are missing, so a CI
 * run without real Vitess cannot pass by testing nothing.
 */
public final class VitessBinaries {
  private VitessBinaries() {}

  public static Path dir() {
    String dir = System.getenv("POINTSMAN_VITESS_BIN");
    if (dir == null || dir.isBlank()) {
      throw new IllegalStateException("POINTSMAN_VITESS_BIN is not set: run the tests with ./scripts/test.sh, "
          + "which builds Vitess 24 (./scripts/vitess.sh build) and exports it");
    }
    return Path.of(dir);
  }

  public static Path binary(String name) {
    Path p = dir().resolve(name);
    if (!Files.isExecutable(p)) {
      throw new IllegalStateException(p + " is not an executable: rebuild with ./scripts/vitess.sh build");
    }
    return p;
  }

  /**
   * Vitess 24's servers refuse to run as root ("running this as root makes no sense"); as root they
   * are started in a user namespace of their own, where they run as an unprivileged user.
   */
  public static java.util.List<String> nonRootPrefix() {
    return "root".equals(System.getProperty("user.name")) ? java.util.List.of("unshare", "--user", "--")
        : java.util.List.of();
  }
}
