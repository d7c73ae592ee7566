package io.pointsman.api.model;

import java.util.Objects;

/**
 * A shard's primary as the Shard record names it: the tablet alias and the start time of its term.
 * A reparent changes the alias, or at least the term (the same tablet promoted again), so two terms
 * that differ mean the primary changed in between.
 *
 * @param alias the tablet alias, e.g. {@code zone1-0000000100}
 * @param termStartTime {@code primary_term_start_time} as the topology gives it; empty when unset
 */
public record PrimaryTerm(String alias, String termStartTime) {
  public PrimaryTerm {
    Objects.requireNonNull(alias, "alias");
    termStartTime = termStartTime == null ? "" : termStartTime;
  }

  @Override
  public String toString() {
    return termStartTime.isEmpty() ? alias : alias + " (term since " + termStartTime + ")";
  }
}
