package io.pointsman.sandbox.router;

import io.pointsman.api.model.TabletType;
import java.util.List;

/**
 * A statement the router can place: the table it touches ({@code t} or {@code ks.t}, resolved
 * through routing rules), the value of the table's primary vindex column, the tablet type whose
 * routing applies, and the SQL with its {@code ?} parameters. The SQL is sent unchanged to the
 * database of the chosen shard, so it names the table unqualified.
 */
public sealed interface RoutedStatement permits Write, Read {
  String table();

  /** The primary vindex column's value (e.g. {@code customer_id}); ignored for unsharded keyspaces. */
  long shardingKey();

  TabletType tabletType();

  String sql();

  List<Object> params();

  /** What the statement is, for error messages: the verb and the table. */
  String describe();
}
