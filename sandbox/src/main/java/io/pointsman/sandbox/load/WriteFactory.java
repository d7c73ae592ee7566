package io.pointsman.sandbox.load;

import io.pointsman.api.names.Names;
import io.pointsman.sandbox.router.Write;

/** Makes the write numbered {@code seq} of a load run. */
@FunctionalInterface
public interface WriteFactory {
  Write write(long seq);

  /**
   * Inserts into a customer-shaped table: {@code customer_id = firstKey + seq} (explicit, so every
   * write has its own sharding key) and {@code email = 'w<seq>@load'}.
   *
   * @param table the routed table name, {@code customer} or {@code ks.customer}
   */
  static WriteFactory customerInserts(String table, long firstKey) {
    String bare = table.substring(table.indexOf('.') + 1);
    String sql = "INSERT INTO " + Names.table(bare) + " (customer_id, email) VALUES (?, ?)";
    return seq -> Write.of(table, firstKey + seq, sql, firstKey + seq, "w" + seq + "@load");
  }
}
