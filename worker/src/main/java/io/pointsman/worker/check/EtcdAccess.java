package io.pointsman.worker.check;

import static io.pointsman.engine.etcd.EtcdClients.bytes;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.pointsman.api.names.Shown;
import io.pointsman.engine.etcd.EtcdErrors;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.topo.TopoPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Checks the etcd settings: that the TLS handshake and the user's authentication succeed, and that
 * the user's role may read and write where pointsman does (the global root with the keyspaces' lock
 * keys, and each cell's root) — without writing. A write permission is probed with a transaction
 * whose condition can never hold ({@code version < 0}): etcd checks the permissions of every
 * operation in a transaction before it evaluates the condition, so a missing permission is refused
 * while a granted one leads to nothing being written (and no new revision).
 */
final class EtcdAccess {
  private static final long TIMEOUT_SECONDS = 10;
  /** Under no real keyspace: the probe's key is never written anyway. */
  private static final String PROBE = "pointsman-check-config";

  private EtcdAccess() {}

  static ServiceReport check(Client etcd, EtcdOptions options, TopoPaths paths) {
    List<Finding> findings = new ArrayList<>();
    String service = "etcd " + String.join(",", options.endpoints())
        + options.user().map(u -> " (user " + u + ")").orElse(" (no user)");
    String how = (options.endpoints().stream().allMatch(e -> e.startsWith("https://"))
        ? "TLS" + (options.certFile().isPresent() ? " with client certificate" : "") : "plaintext")
        + options.user().map(u -> ", authenticated as " + u).orElse("");
    try {
      count(etcd, paths.globalRoot() + "/");
      findings.add(Finding.ok("connect", how));
    } catch (Exception e) {
      findings.add(Finding.missing("connect", EtcdErrors.describe(e)));
      return new ServiceReport(service, findings);
    }
    probe(etcd, findings, paths.globalRoot() + "/", paths.keyspacesPrefix() + PROBE + "/locks/" + PROBE,
        "the topology records and the keyspaces' lock keys");
    List<String> cells = cells(etcd, paths, findings);
    for (String cell : cells) {
      String root;
      try {
        root = paths.cellRoot(cell) + "/";
      } catch (RuntimeException badName) {
        findings.add(Finding.missing("cell " + Shown.text(cell), badName.getMessage()));
        continue;
      }
      probe(etcd, findings, root, root + PROBE, "SrvKeyspace and the tablets of cell " + cell);
    }
    return new ServiceReport(service, findings);
  }

  /** Read and (probed) write under {@code prefix}. */
  private static void probe(Client etcd, List<Finding> findings, String prefix, String probeKey, String why) {
    try {
      count(etcd, prefix);
    } catch (Exception e) {
      findings.add(Finding.missing("read on " + prefix, EtcdErrors.describe(e)));
      return;
    }
    try {
      TxnResponse r = etcd.getKVClient().txn()
          .If(new Cmp(bytes(probeKey), Cmp.Op.LESS, CmpTarget.version(0)))
          .Then(Op.put(bytes(probeKey), bytes(""), PutOption.DEFAULT))
          .commit().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (r.isSucceeded()) {
        // cannot happen: no key has a negative version
        findings.add(Finding.missing("readwrite on " + prefix, "the probe's impossible condition held"));
      } else {
        findings.add(Finding.ok("readwrite on " + prefix, why));
      }
    } catch (Exception e) {
      findings.add(Finding.missing("readwrite on " + prefix, why + ": " + EtcdErrors.describe(e)));
    }
  }

  /** The cells the global root names (CellInfo records); none is a finding of its own. */
  private static List<String> cells(Client etcd, TopoPaths paths, List<Finding> findings) {
    String prefix = paths.cellsPrefix();
    List<String> cells = new ArrayList<>();
    try {
      var kvs = etcd.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).withKeysOnly(true).build())
          .get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getKvs();
      for (var kv : kvs) {
        String rest = kv.getKey().toString(java.nio.charset.StandardCharsets.UTF_8).substring(prefix.length());
        if (rest.endsWith("/CellInfo") && rest.indexOf('/') == rest.length() - "/CellInfo".length()) {
          cells.add(rest.substring(0, rest.indexOf('/')));
        }
      }
    } catch (Exception e) {
      findings.add(Finding.missing("read on " + prefix, EtcdErrors.describe(e)));
      return cells;
    }
    if (cells.isEmpty()) {
      findings.add(Finding.ok("cells", "none under " + prefix + " yet: no cell root to check"));
    }
    return cells;
  }

  private static long count(Client etcd, String prefix) throws Exception {
    return etcd.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).withCountOnly(true).build())
        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getCount();
  }
}
