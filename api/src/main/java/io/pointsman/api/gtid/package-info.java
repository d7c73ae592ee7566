/**
 * Replication positions as Vitess encodes them ({@code MySQL56/...}, {@code MariaDB/...}): pure
 * values, no JDBC, safe in workflow history. {@link io.pointsman.api.gtid.Position} is the entry point;
 * {@link io.pointsman.api.gtid.MysqlGtidSet} and {@link io.pointsman.api.gtid.MariadbGtidSet} hold the sets.
 */
package io.pointsman.api.gtid;
