package io.pointsman.e2e.vitess;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A {@link VitessCluster} with a MoveTables workflow created by vtctldclient: tables {@code customer}
 * and {@code corder} (3 customers, 2 orders) of the unsharded {@code commerce} moving to {@code customer}
 * (hash-sharded, {@code -80} and {@code 80-}), or another {@link Schema} of those two tables;
 * returned once vtctld shows both streams Running with their copy done. One per test class: it
 * takes 10-20 s and about 800 MB.
 */
final class MoveTablesCluster {
  private MoveTablesCluster() {}

  /**
   * What the cluster is set up with: commerce's schema and VSchema, the rows written into commerce
   * through vtgate, and customer's VSchema.
   */
  record Schema(String commerceSql, String commerceVschema, List<String> commerceRows, String customerVschema) {
    /** Plain tables, no sequences. */
    static final Schema PLAIN = new Schema("""
        create table customer(customer_id bigint not null auto_increment, email varchar(128), primary key(customer_id)) engine=InnoDB;
        create table corder(order_id bigint not null auto_increment, customer_id bigint, sku varchar(128), price bigint, primary key(order_id)) engine=InnoDB;
        """,
        "{\"sharded\": false, \"tables\": {\"customer\": {}, \"corder\": {}}}",
        List.of("insert into customer(customer_id, email) values (1, 'alice@example.com'), (2, 'bob@example.com'), (3, 'carol@example.com')",
            "insert into corder(order_id, customer_id, sku, price) values (1, 1, 'SKU-1', 100), (2, 2, 'SKU-2', 30)"),
        """
        {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
         "tables": {"customer": {"column_vindexes": [{"column": "customer_id", "name": "hash"}]},
                    "corder": {"column_vindexes": [{"column": "customer_id", "name": "hash"}]}}}
        """);
  }

  static VitessCluster start(String workflow) throws Exception {
    return start(workflow, Map.of());
  }

  /** The same, with these variables added to vitess-cluster.sh's environment. */
  static VitessCluster start(String workflow, Map<String, String> scriptEnv) throws Exception {
    return start(workflow, scriptEnv, Schema.PLAIN);
  }

  /** The same, set up with {@code schema}. */
  static VitessCluster start(String workflow, Map<String, String> scriptEnv, Schema schema) throws Exception {
    return VitessCluster.start(scriptEnv, cluster -> {
      Path sql = cluster.setupFile("commerce.sql", schema.commerceSql());
      Path commerceVschema = cluster.setupFile("commerce.json", schema.commerceVschema());
      Path customerVschema = cluster.setupFile("customer.json", schema.customerVschema());
      cluster.vtctldclient("ApplySchema", "--sql-file", sql.toString(), "commerce");
      cluster.vtctldclient("ApplyVSchema", "--vschema-file", commerceVschema.toString(), "commerce");
      cluster.execute("commerce", schema.commerceRows().toArray(String[]::new));
      cluster.vtctldclient("ApplyVSchema", "--vschema-file", customerVschema.toString(), "customer");
      cluster.vtctldclientOnceEnginesOpen("MoveTables", "--workflow", workflow, "--target-keyspace", "customer", "create",
          "--source-keyspace", "commerce", "--tables", "customer,corder");
      await("MoveTables copy done, streams Running").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
          .until(() -> allStreams(cluster, workflow, "Running"));
    });
  }


  /** Whether vtctld shows both streams of the workflow in {@code state} with no copy left. */
  static boolean allStreams(VitessCluster cluster, String workflow, String state) {
    return cluster.allStreams("MoveTables", "customer", workflow, 2, state);
  }
}
