package io.pointsman.e2e;

import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.sandbox.cluster.Folders;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.SandboxShape;
import io.pointsman.worker.TemporalDevServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link SwitchWorld} for all the tests of a class: started (and its workflows created, in the
 * order the builder was told) before the class's first test, closed after its last one. Registered
 * as a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().createMoveTables().build();
 * }</pre>
 *
 * <p>A class's own {@code @BeforeAll} methods run after the world is up, its {@code @AfterAll}
 * methods before it is closed, its {@code @AfterEach} methods before the faults are reset (where
 * the builder was told to). A world whose start or creation failed is still closed. A world on a
 * real Temporal server starts the server first, in a folder of its own, and closes and deletes
 * both after the world.
 */
final class SwitchWorldExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
  /** One step of the world's setup after it started; it may throw as the test would. */
  @FunctionalInterface
  interface Step {
    void apply(SwitchWorld world) throws Exception;
  }

  private final Builder spec;
  private Path dir;
  private TemporalDevServer server;
  private SwitchWorld world;

  private SwitchWorldExtension(Builder spec) {
    this.spec = spec;
  }

  /** A MoveTables world: commerce/0 and customer/-80,80- only. */
  static Builder moveTables() {
    return new Builder(true);
  }

  /** A world with the Reshard targets as well (customer/-40,40-80,80-c0,c0-). */
  static Builder reshard() {
    return new Builder(false);
  }

  /** The class's world; only between its start and its close. */
  SwitchWorld world() {
    if (world == null) {
      throw new IllegalStateException("the switch world is not up: it is there only while the class's tests run");
    }
    return world;
  }

  /** The real Temporal server the world's worker polls; only for a world built {@code realTemporal}. */
  TemporalDevServer server() {
    if (server == null) {
      throw new IllegalStateException("no real Temporal server: the world was not built realTemporal, or is not up");
    }
    return server;
  }

  /** The folder of a world on a real Temporal server (its server's data in it), deleted after the class. */
  Path dir() {
    if (dir == null) {
      throw new IllegalStateException("no folder: the world was not built realTemporal, or is not up");
    }
    return dir;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    if (spec.realTemporalFolderPrefix != null) {
      dir = Files.createTempDirectory(spec.realTemporalFolderPrefix);
      server = TemporalDevServer.start(Path.of(TestServices.temporalBinary()), dir.resolve("temporal"));
    }
    world = SwitchWorld.start(spec.moveTablesOnly, spec.shape, spec.ownEtcd, spec.switchWrapper,
        spec.cleanupWrapper, server);
    for (Step step : spec.steps) {
      step.apply(world);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (spec.resetFaultsAfterEach) {
      // a case's armed faults must not fire in the next one, also where the case failed
      spec.faults.reset();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      if (world != null) {
        SwitchWorld closing = world;
        world = null;
        if (spec.resetFaultsBeforeClose) {
          // a block a failed case left armed would hold the worker's shutdown
          spec.faults.reset();
        }
        closing.close();
      }
    } finally {
      if (server != null) {
        server.close();
        server = null;
      }
      if (dir != null) {
        Folders.deleteTree(dir);
        dir = null;
      }
    }
  }

  /** What a class's world is: its shape, its etcd, what its activities go through, what it creates. */
  static final class Builder {
    private final boolean moveTablesOnly;
    private SandboxShape shape = SandboxShape.DEFAULT;
    private boolean ownEtcd;
    private UnaryOperator<SwitchActivities> switchWrapper = UnaryOperator.identity();
    private UnaryOperator<CleanupActivities> cleanupWrapper = UnaryOperator.identity();
    private FaultInjection faults;
    private boolean resetFaultsAfterEach;
    private boolean resetFaultsBeforeClose;
    private String realTemporalFolderPrefix;
    private final List<Step> steps = new ArrayList<>();

    private Builder(boolean moveTablesOnly) {
      this.moveTablesOnly = moveTablesOnly;
    }

    Builder shape(SandboxShape shape) {
      this.shape = Objects.requireNonNull(shape, "shape");
      return this;
    }

    /** The sandbox starts an etcd of its own, which the test may stop and start ({@code sandbox.stopEtcd}). */
    Builder ownEtcd() {
      this.ownEtcd = true;
      return this;
    }

    /** Both the switch and the cleanup activities (Complete's and Cancel's steps) go through {@code faults}. */
    Builder faults(FaultInjection faults) {
      Objects.requireNonNull(faults, "faults");
      this.switchWrapper = faults;
      this.cleanupWrapper = faults::cleanup;
      this.faults = faults;
      return this;
    }

    /** Only the switch activities go through {@code faults}; the cleanup ones are the real ones. */
    Builder switchFaults(FaultInjection faults) {
      this.switchWrapper = Objects.requireNonNull(faults, "faults");
      this.cleanupWrapper = UnaryOperator.identity();
      this.faults = faults;
      return this;
    }

    /** After each test the faults are reset: every fault disarmed, its blocks released, the calls forgotten. */
    Builder resetFaultsAfterEach() {
      requireFaults("resetFaultsAfterEach");
      this.resetFaultsAfterEach = true;
      return this;
    }

    /** The faults are reset before the world is closed, so no block left armed holds its worker. */
    Builder resetFaultsBeforeClose() {
      requireFaults("resetFaultsBeforeClose");
      this.resetFaultsBeforeClose = true;
      return this;
    }

    private void requireFaults(String option) {
      if (faults == null) {
        throw new IllegalStateException(option + " needs the faults first: call faults(...) or switchFaults(...)"
            + " before it");
      }
    }

    /**
     * The world's worker polls a real Temporal server (the CLI's dev server, {@code
     * POINTSMAN_TEMPORAL_BIN}) started in a new temporary folder named from {@code folderPrefix}, so
     * what the SDK's test server does differently cannot hide a bug.
     */
    Builder realTemporal(String folderPrefix) {
      this.realTemporalFolderPrefix = Objects.requireNonNull(folderPrefix, "folderPrefix");
      return this;
    }

    /** Creates the sandbox's MoveTables workflow once the world is up. */
    Builder createMoveTables() {
      return then(SwitchWorld::createMoveTables);
    }

    Builder createMoveTables(MoveTablesSpec workflow) {
      Objects.requireNonNull(workflow, "workflow");
      return then(w -> w.createMoveTables(workflow));
    }

    /** Creates the sandbox's Reshard workflow once the world is up. */
    Builder createReshard() {
      return then(SwitchWorld::createReshard);
    }

    /** Any other step of the setup, after those given before it. */
    Builder then(Step step) {
      steps.add(Objects.requireNonNull(step, "step"));
      return this;
    }

    SwitchWorldExtension build() {
      return new SwitchWorldExtension(this);
    }
  }
}
