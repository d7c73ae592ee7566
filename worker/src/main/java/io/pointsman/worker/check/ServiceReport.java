package io.pointsman.worker.check;

import java.util.List;

/**
 * What {@code check-config} found for one service.
 *
 * @param service e.g. {@code etcd https://10.0.0.5:2379 (user pointsman)}
 */
public record ServiceReport(String service, List<Finding> findings) {
  public ServiceReport {
    findings = List.copyOf(findings);
  }

  public boolean ok() {
    return findings.stream().allMatch(Finding::ok);
  }

  String text() {
    StringBuilder sb = new StringBuilder(service);
    findings.forEach(f -> sb.append('\n').append(f.line()));
    return sb.toString();
  }
}
