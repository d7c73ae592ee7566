package io.pointsman.e2e.vitess;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What a real cluster looked like when a step failed, kept in a folder under {@code target/} (the
 * cluster's own folder goes with it when it stops): the shard records (denied tables), routing rules,
 * vtctld's view of the workflow and of each keyspace's workflows, each primary's running statements
 * and triggers, and the ends of vtgate's and the vttablets' logs. Each part is read on its own; a
 * part that cannot be read says why in its file, and the rest are still written.
 */
final class VitessDiagnostics {
  private static final int LOG_LINES = 400;

  private VitessDiagnostics() {}

  /**
   * Writes the parts into a new folder {@code target/real-vitess-<label>-<millis>} and returns it;
   * {@code targetKeyspace} and {@code workflow} name the workflow whose status and show are kept.
   */
  static Path dump(VitessCluster cluster, String label, String targetKeyspace, String workflow) {
    Path dir = Paths.get("target", "real-vitess-" + label.replaceAll("[^A-Za-z0-9_-]+", "_") + "-"
        + System.currentTimeMillis()).toAbsolutePath();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new IllegalStateException("could not create " + dir, e);
    }
    Set<String> keyspaces = new LinkedHashSet<>();
    for (VitessCluster.Tablet t : cluster.tablets()) {
      keyspaces.add(t.keyspace());
    }
    StringBuilder shards = new StringBuilder();
    Set<String> seen = new LinkedHashSet<>();
    for (VitessCluster.Tablet t : cluster.tablets()) {
      String ks = t.keyspace() + "/" + t.shard();
      if (seen.add(ks)) {
        shards.append("== ").append(ks).append('\n').append(read(() -> cluster.vtctldclient("GetShard", ks))).append('\n');
      }
    }
    write(dir, "shards.txt", shards.toString());
    write(dir, "routing-rules.json", read(() -> cluster.vtctldclient("GetRoutingRules")));
    write(dir, "workflow-status.json", read(() -> cluster.vtctldclient("MoveTables", "--workflow", workflow,
        "--target-keyspace", targetKeyspace, "status", "--format", "json")));
    write(dir, "workflow-show.json", read(() -> cluster.vtctldclient("MoveTables", "--workflow", workflow,
        "--target-keyspace", targetKeyspace, "show")));
    StringBuilder workflows = new StringBuilder();
    for (String ks : keyspaces) {
      workflows.append("== ").append(ks).append('\n')
          .append(read(() -> cluster.vtctldclient("Workflow", "--keyspace", ks, "list"))).append('\n');
    }
    write(dir, "workflows.txt", workflows.toString());
    StringBuilder primaries = new StringBuilder();
    for (VitessCluster.Tablet t : cluster.tablets()) {
      if (t.type().equals("primary")) {
        primaries.append("== ").append(t.alias()).append(' ').append(t.keyspace()).append('/').append(t.shard())
            .append("\n-- statements\n").append(read(() -> rows(cluster, t, "select id, user, db, command, time, state,"
                + " left(info, 300) from information_schema.processlist where command not in ('Sleep', 'Binlog Dump')")))
            .append("-- triggers\n").append(read(() -> rows(cluster, t,
                "select trigger_schema, trigger_name, event_object_table from information_schema.triggers")))
            .append("-- streams\n").append(read(() -> rows(cluster, t,
                "select id, workflow, state, left(message, 200), pos from _vt.vreplication")));
      }
    }
    write(dir, "primaries.txt", primaries.toString());
    Path clusterDir = Paths.get(cluster.env("VITESS_CLUSTER_DIR"));
    List<String> logs = new ArrayList<>(List.of("vtgate.log"));
    for (VitessCluster.Tablet t : cluster.tablets()) {
      logs.add("vttablet-" + Integer.parseInt(t.alias().substring(t.alias().indexOf('-') + 1)) + ".log");
    }
    for (String log : logs) {
      write(dir, log, read(() -> tail(clusterDir.resolve(log))));
    }
    return dir;
  }

  private static String rows(VitessCluster cluster, VitessCluster.Tablet t, String sql) {
    try (Connection c = cluster.tabletDba(t); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      StringBuilder b = new StringBuilder();
      while (rs.next()) {
        for (int i = 1; i <= n; i++) {
          b.append(i > 1 ? " | " : "").append(rs.getString(i));
        }
        b.append('\n');
      }
      return b.toString();
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size())) + "\n";
    } catch (IOException e) {
      throw new IllegalStateException("could not read " + file + ": " + e, e);
    }
  }

  /** The part, or why it could not be read: a broken cluster is what this is for. */
  private static String read(Supplier<String> part) {
    try {
      return part.get();
    } catch (RuntimeException e) {
      return "(could not read: " + e.getMessage() + ")\n";
    }
  }

  private static void write(Path dir, String name, String text) {
    try {
      Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("could not write " + dir.resolve(name), e);
    }
  }
}
