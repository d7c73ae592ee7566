package io.pointsman.e2e;

/**
 * A workflow's traffic state as vtctldclient's status words it, and as pointsman's results and
 * queries report it: the expected values the e2e tests compare with.
 */
public final class TrafficStates {
  public static final String NOT_SWITCHED = "Reads Not Switched. Writes Not Switched";
  public static final String READS_SWITCHED = "All Reads Switched. Writes Not Switched";
  public static final String ALL_SWITCHED = "All Reads Switched. Writes Switched";

  private TrafficStates() {}
}
