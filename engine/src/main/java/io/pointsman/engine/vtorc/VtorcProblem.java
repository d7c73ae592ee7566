package io.pointsman.engine.vtorc;

/**
 * One problem a VTOrc reports on a shard, from its detection analysis.
 *
 * @param vtorc the VTOrc that reported it, {@code host:port}
 * @param analysis VTOrc's analysis code, e.g. {@code DeadPrimary}
 * @param tablet the analysed tablet's alias, e.g. {@code zone1-0000000100}; empty when VTOrc names none
 * @param description VTOrc's own words; may be empty
 */
public record VtorcProblem(String vtorc, String keyspace, String shard, String analysis, String tablet,
    String description) {

  /** For the refusal: who reports what, where. */
  public String describe() {
    StringBuilder b = new StringBuilder("VTOrc ").append(vtorc).append(" reports ").append(analysis).append(" on ")
        .append(keyspace).append('/').append(shard);
    if (!tablet.isEmpty()) {
      b.append(" (tablet ").append(tablet).append(')');
    }
    if (!description.isEmpty()) {
      b.append(": ").append(description);
    }
    return b.toString();
  }
}
