package io.pointsman.sandbox.cluster;

import io.pointsman.api.names.Names;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The tables and rows of the Vitess local example. The commerce keyspace gets all three tables and
 * a handful of rows; customer shards get {@code customer} and {@code corder} empty and without
 * AUTO_INCREMENT, the way MoveTables creates tables in a sharded keyspace by default (ids come from
 * the source, never from a per-shard counter).
 */
final class SampleSchema {
  static final String PRODUCT = "CREATE TABLE IF NOT EXISTS %s.product ("
      + " sku varchar(128) NOT NULL, description varchar(128), price bigint,"
      + " PRIMARY KEY (sku)) ENGINE=InnoDB";
  static final String CUSTOMER = "CREATE TABLE IF NOT EXISTS %s.customer ("
      + " customer_id bigint NOT NULL%s, email varchar(128),"
      + " PRIMARY KEY (customer_id)) ENGINE=InnoDB";
  static final String CORDER = "CREATE TABLE IF NOT EXISTS %s.corder ("
      + " order_id bigint NOT NULL%s, customer_id bigint, sku varchar(128), price bigint,"
      + " PRIMARY KEY (order_id)) ENGINE=InnoDB";

  static final String STOCK = "CREATE TABLE IF NOT EXISTS %s.stock ("
      + " sku varchar(128) NOT NULL, quantity bigint, PRIMARY KEY (sku)) ENGINE=InnoDB";
  static final String STOCK_ROWS = "INSERT INTO %s.stock (sku, quantity) VALUES ('SKU-1001', 7), ('SKU-1002', 12)";

  /** The sample rows; customer ids 1..5 spread over both customer shards under the hash vindex. */
  static final List<String> COMMERCE_ROWS = List.of(
      "INSERT INTO %s.product (sku, description, price) VALUES"
          + " ('SKU-1001', 'Monitor', 100), ('SKU-1002', 'Keyboard', 30)",
      "INSERT INTO %s.customer (customer_id, email) VALUES"
          + " (1, 'alice@domain.com'), (2, 'bob@domain.com'), (3, 'charlie@domain.com'),"
          + " (4, 'dan@domain.com'), (5, 'eve@domain.com')",
      "INSERT INTO %s.corder (order_id, customer_id, sku, price) VALUES"
          + " (1, 1, 'SKU-1001', 100), (2, 2, 'SKU-1002', 30), (3, 3, 'SKU-1002', 30),"
          + " (4, 4, 'SKU-1002', 30), (5, 5, 'SKU-1002', 30)");

  private SampleSchema() {}

  /**
   * Creates the commerce tables, and the extra ones (empty, shaped like customer), and loads the
   * rows unless the tables already hold some.
   */
  static void commerce(Connection c, String dbName, List<String> extraTables) throws SQLException {
    String db = createDatabase(c, dbName);
    try (Statement s = c.createStatement()) {
      s.execute(String.format(PRODUCT, db));
      s.execute(String.format(CUSTOMER, db, " AUTO_INCREMENT"));
      s.execute(String.format(CORDER, db, " AUTO_INCREMENT"));
      for (String table : extraTables) {
        s.execute(String.format(CUSTOMER, db, " AUTO_INCREMENT").replace(".customer (", "." + Names.table(table)
            + " ("));
      }
      if (isEmpty(s, db + ".product") && isEmpty(s, db + ".customer") && isEmpty(s, db + ".corder")) {
        c.setAutoCommit(false);
        try {
          for (String insert : COMMERCE_ROWS) {
            s.execute(String.format(insert, db));
          }
          c.commit();
        } catch (SQLException e) {
          c.rollback();
          throw e;
        } finally {
          c.setAutoCommit(true);
        }
      }
    }
  }

  /** Creates the warehouse's stock table, and loads its rows unless it holds some. */
  static void warehouse(Connection c, String dbName) throws SQLException {
    String db = createDatabase(c, dbName);
    try (Statement s = c.createStatement()) {
      s.execute(String.format(STOCK, db));
      if (isEmpty(s, db + ".stock")) {
        s.execute(String.format(STOCK_ROWS, db));
      }
    }
  }

  /** Creates the (empty) customer tables of a serving customer shard. */
  static void customerShard(Connection c, String dbName) throws SQLException {
    String db = createDatabase(c, dbName);
    try (Statement s = c.createStatement()) {
      s.execute(String.format(CUSTOMER, db, ""));
      s.execute(String.format(CORDER, db, ""));
    }
  }

  /** Creates an empty database (a Reshard target's tables are copied when the Reshard is created). */
  static String createDatabase(Connection c, String dbName) throws SQLException {
    String db = "`" + Names.database(dbName) + "`";
    try (Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS " + db);
    }
    return db;
  }

  private static boolean isEmpty(Statement s, String table) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT 1 FROM " + table + " LIMIT 1")) {
      return !rs.next();
    }
  }
}
