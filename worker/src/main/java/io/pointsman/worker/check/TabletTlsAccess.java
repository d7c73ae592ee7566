package io.pointsman.worker.check;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.tablet.TabletRpcOptions;
import java.util.List;

/**
 * Checks the vttablet gRPC TLS settings: the CA, certificate and key files are read and parsed as
 * the tablet client will read them. No tablet is called: pointsman drives shard primaries over
 * MySQL until the tablet-manager switch is wired into the worker (docs/real-vitess.md).
 */
final class TabletTlsAccess {
  private TabletTlsAccess() {}

  /** A report only when TLS is configured; plaintext has nothing to check. */
  static List<ServiceReport> check(TabletRpcOptions options) {
    if (!options.tls().enabled()) {
      return List.of();
    }
    Finding f;
    try (TabletManagerClient ignored = new TabletManagerClient(options)) {
      f = Finding.ok("settings", options.tls().describe());
    } catch (PointsmanException e) {
      f = Finding.missing("settings", e.getMessage());
    }
    return List.of(new ServiceReport("vttablet gRPC", List.of(f)));
  }
}
