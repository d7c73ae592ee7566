package io.pointsman.e2e.vitess;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A {@link VitessCluster} with a Reshard workflow created by vtctldclient: keyspace {@code customer}
 * (hash-sharded, table {@code customer}, 4 rows) serving from shard {@code 0}, resharded into
 * {@code -80} and {@code 80-}; returned once vtctld shows both streams Running with their copy done.
 */
final class ReshardCluster {
  /** One primary per shard; the shards are created in this order, so only {@code 0} serves. */
  static final String TABLETS = "200:customer:0 300:customer:-80 400:customer:80-";

  private ReshardCluster() {}

  static VitessCluster start(String workflow) throws Exception {
    return VitessCluster.start(Map.of("POINTSMAN_VITESS_TABLETS_SPEC", TABLETS), cluster -> {
      Path schema = cluster.setupFile("customer.sql",
          "create table customer(customer_id bigint not null, email varchar(128), primary key(customer_id)) engine=InnoDB;");
      Path vschema = cluster.setupFile("customer.json", """
          {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
           "tables": {"customer": {"column_vindexes": [{"column": "customer_id", "name": "hash"}]}}}
          """);
      // every shard gets the table, so the Reshard copies rows only (--skip-schema-copy)
      cluster.vtctldclient("ApplySchema", "--sql-file", schema.toString(), "customer");
      cluster.vtctldclient("ApplyVSchema", "--vschema-file", vschema.toString(), "customer");
      cluster.execute("customer", "insert into customer(customer_id, email) values (1, 'alice@example.com'),"
          + " (2, 'bob@example.com'), (3, 'carol@example.com'), (4, 'dan@example.com')");
      cluster.vtctldclientOnceEnginesOpen("Reshard", "--workflow", workflow, "--target-keyspace", "customer", "create",
          "--source-shards", "0", "--target-shards", "-80,80-", "--skip-schema-copy");
      await("Reshard copy done, streams Running").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
          .until(() -> cluster.allStreams("Reshard", "customer", workflow, 2, "Running"));
    });
  }
}
