package io.pointsman.engine.mysql;

import io.pointsman.api.lock.LockSet;
import io.pointsman.api.names.Names;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dropping or renaming a workflow's tables on a primary, as Vitess's Complete (source tables) and
 * Cancel (target tables) do. DDL cannot share a transaction with the fence, so each statement is
 * a fenced DDL statement ({@link MySqlFence#ddl}: checked and run under a guard a newer holder's
 * fence raise waits for) and idempotent: a table already gone is skipped.
 */
public final class TableDrops {
  private static final Logger log = LoggerFactory.getLogger(TableDrops.class);

  /** The longest one drop or rename waits for its guard and then for the table's metadata lock. */
  private static final Duration STATEMENT_WAIT = Duration.ofSeconds(60);

  private final ConnectionPools pools;
  private final MySqlFence fence;

  public TableDrops(ConnectionPools pools, MySqlFence fence) {
    this.pools = pools;
    this.fence = fence;
  }

  /** Vitess's renamed-table name {@code _<t>_old}, cut so it stays within MySQL's 64 characters. */
  public static String renamedName(String table) {
    String base = table.length() > 59 ? table.substring(0, 59) : table;
    return "_" + base + "_old";
  }

  /** The base tables of the endpoint's database, sorted. */
  public List<String> baseTables(PrimaryEndpoint endpoint) {
    try (Connection c = pools.connection(endpoint)) {
      return BaseTables.of(c, endpoint.dbName());
    } catch (SQLException e) {
      throw SqlErrors.translate("listing the tables of " + endpoint, e);
    }
  }


  /** Drops the tables that exist; returns the ones dropped. */
  public List<String> drop(PrimaryEndpoint endpoint, Collection<String> tables, LockSet locks) {
    return run(endpoint, tables, locks, false);
  }

  /** Renames the tables that exist to {@code _<t>_old}; returns the ones renamed. */
  public List<String> rename(PrimaryEndpoint endpoint, Collection<String> tables, LockSet locks) {
    return run(endpoint, tables, locks, true);
  }

  private List<String> run(PrimaryEndpoint endpoint, Collection<String> tables, LockSet locks, boolean rename) {
    tables.forEach(Names::table);
    List<String> present = baseTables(endpoint);
    List<String> done = new ArrayList<>();
    for (String t : tables) {
      if (!present.contains(t)) {
        continue;
      }
      String action = (rename ? "renaming " : "dropping ") + "table " + t;
      String sql = rename
          ? "RENAME TABLE " + SqlIdentifiers.qualified(endpoint.dbName(), t) + " TO "
              + SqlIdentifiers.qualified(endpoint.dbName(), renamedName(t))
          : "DROP TABLE IF EXISTS " + SqlIdentifiers.qualified(endpoint.dbName(), t);
      try (Connection c = pools.dedicatedConnection(endpoint); Statement st = c.createStatement()) {
        // Vitess drops with foreign key checks off: the moved tables may reference each other.
        st.execute("SET SESSION foreign_key_checks = 0");
        fence.ddl(c, endpoint, locks, 0, System.nanoTime() + STATEMENT_WAIT.toNanos(), action, sql);
      } catch (SQLException e) {
        if (rename && e.getErrorCode() == SqlErrors.ER_NO_SUCH_TABLE && baseTables(endpoint).contains(renamedName(t))) {
          log.info("table {} on {} was renamed meanwhile; nothing left to do", t, endpoint);
          continue; // an earlier attempt of the same step renamed it after this one listed the tables
        }
        throw SqlErrors.translate(action + " on " + endpoint, e);
      }
      log.info("{} on {}", action, endpoint);
      done.add(t);
    }
    return done;
  }
}
