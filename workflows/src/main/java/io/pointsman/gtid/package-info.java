/**
 * Replication positions as Vitess encodes them ({@code MySQL56/...}, {@code MariaDB/...}): pure
 * values, no JDBC, safe in workflow history. {@link io.pointsman.gtid.Position} is the entry point;
 * {@link io.pointsman.gtid.MysqlGtidSet} and {@link io.pointsman.gtid.MariadbGtidSet} hold the sets.
 */
package io.pointsman.gtid;
