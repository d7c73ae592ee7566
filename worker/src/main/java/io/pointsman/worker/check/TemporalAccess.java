package io.pointsman.worker.check;

import io.pointsman.client.TemporalConnection;
import io.pointsman.client.TemporalOptions;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the Temporal settings: the frontend answers its health check over the configured TLS (and
 * client certificate), and the namespace can be described with the given credentials (API key or
 * certificate), which is the first thing a worker needs. Reads only.
 */
final class TemporalAccess {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private TemporalAccess() {}

  static ServiceReport check(TemporalOptions options) {
    String service = "temporal " + options.address() + " (namespace " + options.namespace() + ")";
    List<Finding> findings = new ArrayList<>();
    String how = options.tls() ? "TLS" + (options.tlsCertFile().isPresent() ? " with client certificate" : "")
        : "plaintext";
    how += options.apiKey().isPresent() ? ", API key" : "";
    try (TemporalConnection c = TemporalConnection.connected(options, TIMEOUT)) {
      findings.add(Finding.ok("connect", how));
      try {
        c.service().blockingStub().withDeadlineAfter(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
            .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace(options.namespace()).build());
        findings.add(Finding.ok("namespace " + options.namespace(), "described"));
      } catch (RuntimeException e) {
        findings.add(Finding.missing("namespace " + options.namespace(), e.getMessage()));
      }
    } catch (RuntimeException e) {
      findings.add(Finding.missing("connect", how + ": " + e.getMessage()));
    }
    return new ServiceReport(service, findings);
  }
}
