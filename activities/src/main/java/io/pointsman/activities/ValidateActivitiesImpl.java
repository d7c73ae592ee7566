package io.pointsman.activities;

import io.etcd.jetcd.Client;
import io.pointsman.api.activities.ValidateActivities;
import io.pointsman.api.model.TopologyReport;
import io.pointsman.engine.Services;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.validate.TopologyValidator;
import io.pointsman.engine.validate.ValidationReport;
import java.util.Objects;

/** {@link ValidateActivities} on the worker's etcd and shard primaries. */
public final class ValidateActivitiesImpl implements ValidateActivities {
  private final TopologyValidator validator;

  public ValidateActivitiesImpl(Client etcd, TopoPaths paths, Services services) {
    this.validator = new TopologyValidator(Objects.requireNonNull(etcd, "etcd"), Objects.requireNonNull(paths,
        "paths"), Objects.requireNonNull(services, "services"));
  }

  @Override
  public TopologyReport validateTopology(String targetKeyspace, String workflow) {
    return ActivityFailures.translate(() -> {
      ValidationReport r = validator.validate(targetKeyspace, workflow);
      return new TopologyReport(r.targetKeyspace(), r.workflow(), r.state(), r.summary(), r.violations().stream()
          .map(v -> new TopologyReport.Violation(v.invariant(), v.detail())).toList());
    });
  }
}
