package io.pointsman.api.gtid;

/**
 * A set of GTIDs in one flavor: immutable, printable in Vitess's form, and comparable with another
 * set of the same flavor. Instances are normalized, so equal sets are {@code equals} and print alike.
 */
public sealed interface GtidSet permits MysqlGtidSet, MariadbGtidSet {

  GtidFlavor flavor();

  /**
   * "Has a server at this set reached {@code other}?": MySQL, every transaction of {@code other}
   * is in this set; MariaDB, for every domain of {@code other} this set has that domain at the same
   * or a higher sequence number (server ids are ignored, as Vitess ignores them).
   *
   * @throws io.pointsman.api.errors.PointsmanException INVALID_ARGUMENT when the flavors differ
   */
  boolean contains(GtidSet other);

  boolean isEmpty();

  /** The set without flavor prefix, as Vitess prints it (sorted, one line). */
  @Override
  String toString();
}
