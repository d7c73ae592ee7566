package io.pointsman.engine.lock;

import java.util.List;

/**
 * A check of several locks already put to etcd, answered when {@link #statuses} is called. A step
 * asks when it begins its reads and takes the answer before its first change: etcd works on the
 * question while the step reads, instead of after. The answer says whether the locks were held
 * when etcd answered, as {@link LockService#checkAll} does.
 */
@FunctionalInterface
public interface LockCheck {
  /**
   * @return the statuses, in the order of the tokens asked about
   * @throws io.pointsman.api.errors.PointsmanException UNAVAILABLE when etcd did not answer in time
   */
  List<LockStatus> statuses();
}
