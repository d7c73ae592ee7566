package io.pointsman.sandbox.router;

import java.sql.ResultSet;
import java.sql.SQLException;

/** Maps the current row of a result set; called once per row. */
@FunctionalInterface
public interface RowMapper<T> {
  T map(ResultSet row) throws SQLException;
}
