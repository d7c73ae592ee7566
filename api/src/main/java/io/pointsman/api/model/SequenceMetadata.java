package io.pointsman.api.model;

import java.util.Objects;

/**
 * One sequence a moved table takes its ids from, as the target keyspace's VSchema names it: the
 * table's {@code auto_increment} column and the backing sequence table behind it.
 *
 * @param usingTable the moved table
 * @param usingColumn its auto-increment column
 * @param backingKeyspace the unsharded keyspace the sequence table lives in
 * @param backingTable the sequence table
 */
public record SequenceMetadata(String usingTable, String usingColumn, String backingKeyspace, String backingTable) {
  public SequenceMetadata {
    Objects.requireNonNull(usingTable, "usingTable");
    Objects.requireNonNull(usingColumn, "usingColumn");
    Objects.requireNonNull(backingKeyspace, "backingKeyspace");
    Objects.requireNonNull(backingTable, "backingTable");
  }

  /** {@code keyspace.table} of the sequence table. */
  public String qualifiedBackingTable() {
    return backingKeyspace + "." + backingTable;
  }
}
