package io.pointsman.engine.mysql;

import java.sql.Connection;
import java.sql.SQLException;

/** JDBC work on a connection that the caller owns (and, for fenced work, a transaction it commits). */
@FunctionalInterface
public interface SqlWork<T> {
  T run(Connection connection) throws SQLException;
}
