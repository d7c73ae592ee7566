package io.pointsman.worker.check;

import io.etcd.jetcd.Client;
import io.pointsman.api.names.Shown;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.worker.ConfigException;
import io.pointsman.worker.WorkerConfig;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code java -jar pointsman-worker.jar check-config}: connects to every service the worker's
 * environment configures, with exactly those settings, and prints per service what works and what
 * is missing: etcd (TLS handshake, authentication, the role's read and write on the topology roots),
 * each shard primary the topology names, or those given with {@code --mysql} (TLS, the grants
 * pointsman needs), and Temporal (TLS, credentials, the namespace). It changes nothing. Exit codes:
 * 0 everything works, 1 something is missing, 2 a wrong command line or setting.
 */
public final class CheckConfigMain {
  private static final Pattern MYSQL = Pattern.compile("(.+):(\\d{1,5})/([A-Za-z0-9_$]{1,64})");

  private CheckConfigMain() {}

  public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    List<PrimaryEndpoint> given = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--mysql" -> {
          if (i + 1 >= args.length) {
            err.println("check-config: --mysql needs HOST:PORT/DATABASE\n" + usage());
            return 2;
          }
          Matcher m = MYSQL.matcher(args[++i]);
          try {
            if (!m.matches()) {
              throw new IllegalArgumentException("expected HOST:PORT/DATABASE");
            }
            given.add(new PrimaryEndpoint("given", "0", new TabletAlias("given", given.size() + 1), m.group(1),
                Integer.parseInt(m.group(2)), m.group(3), "_vt"));
          } catch (RuntimeException e) {
            err.println("check-config: --mysql '" + Shown.text(args[i]) + "': " + e.getMessage() + "\n" + usage());
            return 2;
          }
        }
        case "--help", "-h" -> {
          out.println(usage());
          return 0;
        }
        default -> {
          err.println("check-config: unknown argument '" + Shown.text(args[i]) + "'\n" + usage());
          return 2;
        }
      }
    }
    WorkerConfig config;
    try {
      config = WorkerConfig.fromEnv(env);
    } catch (ConfigException e) {
      err.println("check-config: " + e.getMessage());
      return 2;
    }
    List<ServiceReport> reports = new ArrayList<>();
    List<Labelled> primaries = new ArrayList<>();
    given.forEach(ep -> primaries.add(new Labelled(ep, "--mysql")));
    try (Client etcd = EtcdClients.create(config.etcd())) {
      ServiceReport etcdReport = EtcdAccess.check(etcd, config.etcd(), config.topoPaths());
      reports.add(etcdReport);
      if (given.isEmpty() && etcdReport.findings().get(0).ok()) {
        ServiceReport topology = discover(etcd, config, primaries);
        if (!topology.findings().isEmpty()) {
          reports.add(topology);
        }
      }
    } catch (RuntimeException e) {
      reports.add(new ServiceReport("etcd " + String.join(",", config.etcd().endpoints()),
          List.of(Finding.missing("connect", e.getMessage()))));
    }
    try (ConnectionPools pools = new ConnectionPools(config.mysql())) {
      for (Labelled p : primaries) {
        reports.add(MySqlAccess.check(pools, p.endpoint(), p.label()));
      }
    }
    if (primaries.isEmpty()) {
      reports.add(new ServiceReport("mysql", List.of(Finding.missing("primaries",
          "none to check: the topology names no shard primary; give one with --mysql HOST:PORT/DATABASE"))));
    }
    reports.add(TemporalAccess.check(config.temporal()));
    reports.addAll(TabletTlsAccess.check(config.tablets()));

    long missing = reports.stream().flatMap(r -> r.findings().stream()).filter(f -> !f.ok()).count();
    for (ServiceReport r : reports) {
      out.println(r.text());
    }
    out.println(missing == 0 ? "check-config: everything works; nothing was changed"
        : "check-config: " + missing + " missing; nothing was changed");
    return missing == 0 ? 0 : 1;
  }

  private record Labelled(PrimaryEndpoint endpoint, String label) {}

  /** Every keyspace's shard primaries, as the worker would resolve them; what cannot be resolved is a finding. */
  private static ServiceReport discover(Client etcd, WorkerConfig config, List<Labelled> primaries) {
    List<Finding> findings = new ArrayList<>();
    EtcdTopologyStore store = new EtcdTopologyStore(etcd, config.topoPaths());
    PrimaryResolver resolver = new PrimaryResolver(store);
    try {
      for (String keyspace : store.listKeyspaces()) {
        for (String shard : store.listShards(keyspace)) {
          try {
            PrimaryEndpoint ep = resolver.resolve(keyspace, shard);
            primaries.add(new Labelled(ep, keyspace + "/" + shard + " primary " + ep.alias()));
          } catch (RuntimeException e) {
            findings.add(Finding.missing(Shown.text(keyspace) + "/" + Shown.text(shard), e.getMessage()));
          }
        }
      }
    } catch (RuntimeException e) {
      findings.add(Finding.missing("listing keyspaces and shards", e.getMessage()));
    }
    return new ServiceReport("topology " + config.topoPaths().globalRoot(), findings);
  }

  public static String usage() {
    return "Usage: java -jar pointsman-worker.jar check-config [--mysql HOST:PORT/DATABASE]...\n"
        + "  Connects to etcd, the shard primaries (those the topology names, or each --mysql) and Temporal with\n"
        + "  the worker's settings (ETCD_*, TOPO_*, MYSQL_*, TEMPORAL_*) and prints what works and what is missing:\n"
        + "  TLS, authentication, the etcd role's read/write on the topology roots, the MySQL grants, the Temporal\n"
        + "  namespace. Changes nothing. Exit 0 when everything works, 1 when something is missing.";
  }
}
