package io.pointsman.sandbox.cluster;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** A test that starts sandbox servers in a data folder of its own, and stops whatever they left running. */
public abstract class SandboxFolderTest {
  @TempDir
  protected Path dataDir;

  @AfterEach
  void stopLeftovers() {
    // A failed assertion must not leave servers behind for the next test.
    ServerProcesses.stopAll(dataDir);
  }
}
