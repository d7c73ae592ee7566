package io.pointsman.worker;

import io.etcd.jetcd.Client;
import io.pointsman.engine.Services;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.validate.TopologyValidator;
import io.pointsman.engine.validate.ValidationReport;
import java.io.PrintStream;
import java.util.Map;

/**
 * {@code java -jar pointsman-worker.jar validate --workflow W --target-keyspace K}: reads etcd and
 * the shard primaries directly, configured from the same environment as the worker, and prints
 * every invariant of the workflow's defined states that the world breaks. It lives here, not in
 * the {@code pointsman} CLI, because the CLI talks to Temporal only and carries no jetcd
 * or JDBC; the worker jar already has both and their configuration. Exit codes: 0 no violation,
 * 1 violations (or etcd/MySQL could not be read), 2 a wrong command line or setting.
 */
final class ValidateMain {
  private ValidateMain() {}

  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    String workflow = null;
    String targetKeyspace = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String value = i + 1 < args.length ? args[i + 1] : null;
      switch (a) {
        case "--workflow" -> {
          workflow = value;
          i++;
        }
        case "--target-keyspace" -> {
          targetKeyspace = value;
          i++;
        }
        case "--help", "-h" -> {
          out.println(usage());
          return 0;
        }
        default -> {
          err.println("validate: unknown argument '" + a + "'\n" + usage());
          return 2;
        }
      }
    }
    if (workflow == null || targetKeyspace == null) {
      err.println("validate: --workflow and --target-keyspace are required\n" + usage());
      return 2;
    }
    WorkerConfig config;
    try {
      config = WorkerConfig.fromEnv(env);
    } catch (ConfigException e) {
      err.println("validate: " + e.getMessage());
      return 2;
    }
    try (Client etcd = EtcdClients.create(config.etcd());
        Services services = new Services(etcd, config.topoPaths(), config.mysql(), config.tablets(),
          config.primaryBackend(), config.tabletWriteBarrier())) {
      ValidationReport report = new TopologyValidator(etcd, config.topoPaths(), services)
          .validate(targetKeyspace, workflow);
      out.println(report.describe());
      return report.ok() ? 0 : 1;
    } catch (RuntimeException e) {
      err.println("validate: " + (e.getMessage() == null ? e : e.getMessage()));
      return 1;
    }
  }

  static String usage() {
    return "Usage: java -jar pointsman-worker.jar validate --workflow W --target-keyspace K\n"
        + "  Reads etcd and the shard primaries (ETCD_*, TOPO_*, MYSQL_* as for the worker) and names every "
        + "broken invariant.";
  }

  public static void main(String[] args) {
    System.exit(run(args, System.getenv(), System.out, System.err));
  }
}
