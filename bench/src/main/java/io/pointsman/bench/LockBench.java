package io.pointsman.bench;

import static io.pointsman.engine.etcd.EtcdClients.bytes;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.concurrent.InTurn;
import io.pointsman.engine.lock.EtcdLockService;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockContents;
import io.pointsman.engine.lock.LockHolder;
import io.pointsman.engine.lock.LockListener;
import io.pointsman.engine.lock.LockOptions;
import io.pointsman.engine.lock.LockStatus;
import io.pointsman.engine.topo.TopoPaths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The lock section of issue 8. Latency: a named lock acquired and released through
 * {@link EtcdLockService}, against the same etcd operations issued directly with jetcd (lease grant,
 * create-if-absent transaction, read of the line of earlier holders; lease revoke), so what pointsman
 * adds over the physical floor is visible, and the bare create transaction as the floor of one round
 * trip. The three are interleaved round by round, so drift in etcd or the machine hits them alike.
 * Renewal: many locks with a short TTL held for a long time while the service renews them by itself;
 * every loss is counted, and a tap on the lease client shows how far apart renewals came.
 */
final class LockBench {
  /** Untimed rounds first: class loading, JIT and the gRPC connection would otherwise be the tail. */
  static final int WARM_UP_ROUNDS = 10;
  /** The latency locks are released within milliseconds; the TTL only has to outlive one round. */
  private static final Duration LATENCY_TTL = Duration.ofSeconds(10);
  /** A raw call that takes longer is an etcd failure, not a figure. */
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
  private static final String ACTION = "LockBench";

  private LockBench() {}

  /**
   * @param samples timed rounds of each latency figure
   * @param renewLocks locks held at once in the renewal run
   * @param renewTtl their TTL (rounded up to whole seconds, as etcd leases are)
   * @param renewFor how long they are held
   */
  record Options(int samples, int renewLocks, Duration renewTtl, Duration renewFor) {
    Options {
      Objects.requireNonNull(renewTtl, "renewTtl");
      Objects.requireNonNull(renewFor, "renewFor");
      if (samples < 1 || renewLocks < 1) {
        throw new IllegalArgumentException("lock samples and renewal locks must be positive, were " + samples
            + " and " + renewLocks);
      }
      if (renewTtl.isNegative() || renewTtl.isZero() || renewFor.isNegative() || renewFor.isZero()) {
        throw new IllegalArgumentException("lock renewal TTL and duration must be positive, were " + renewTtl
            + " and " + renewFor);
      }
    }
  }

  /**
   * @param rawTxn the create-if-absent transaction alone
   * @param rawAcquire lease grant, that transaction with the lease, and the read of the line
   * @param rawRelease lease revoke
   * @param rawLock rawAcquire and rawRelease of one round, timed as one
   * @param acquire {@link EtcdLockService#lockNamed}
   * @param release {@link HeldLock#close()}
   * @param lock acquire and release of one round, timed as one
   */
  record Figures(Stats rawTxn, Stats rawAcquire, Stats rawRelease, Stats rawLock, Stats acquire, Stats release,
      Stats lock, Renewal renewal) {}

  /**
   * @param locks locks held at once
   * @param ttl their TTL
   * @param renewInterval the service's interval between renewals of one lock
   * @param heldFor from the last acquisition to the end of the hold, as measured
   * @param renewals successful keep-alives during the hold, all locks together
   * @param failedRenewals keep-alives during the hold that failed or found the lease expired
   * @param gaps per lock, the time between the send times of its grant and its successive
   *     successful renewals, the last gap running to the end of the hold
   * @param losses locks lost: reported by the service, or not held by the end by their handle's
   *     account or by etcd's
   * @param lossReports what each loss said
   */
  record Renewal(int locks, Duration ttl, Duration renewInterval, Duration heldFor, long renewals,
      long failedRenewals, Stats gaps, long losses, List<String> lossReports) {
    Renewal {
      lossReports = List.copyOf(lossReports);
    }
  }

  /**
   * Measures on {@code etcd} under a named-lock directory of this run's own below {@code paths}' global
   * root, and deletes what it wrote. Takes about {@code options.renewFor()} plus a few milliseconds per
   * sample.
   */
  static Figures run(Client etcd, TopoPaths paths, Options options) throws InterruptedException {
    String base = "lockbench/run-" + UUID.randomUUID().toString().substring(0, 8);
    try {
      Latency latency = measureLatency(etcd, paths, base, options.samples());
      Renewal renewal = measureRenewal(etcd, base, paths, options);
      return new Figures(latency.rawTxn(), latency.rawAcquire(), latency.rawRelease(), latency.rawLock(),
          latency.acquire(), latency.release(), latency.lock(), renewal);
    } finally {
      // every lease is revoked and every key deleted on the way; this catches what a failure left
      deletePrefix(etcd, paths.namedLockDir(base) + "/");
    }
  }

  private record Latency(Stats rawTxn, Stats rawAcquire, Stats rawRelease, Stats rawLock, Stats acquire,
      Stats release, Stats lock) {}

  private static Latency measureLatency(Client etcd, TopoPaths paths, String base, int samples)
      throws InterruptedException {
    String txnKey = TopoPaths.locksPrefix(paths.namedLockDir(base + "/txn")) + "0";
    String rawLocks = TopoPaths.locksPrefix(paths.namedLockDir(base + "/raw"));
    String name = base + "/latency";
    LockOptions lockOptions = LockOptions.builder().action(ACTION).ttl(LATENCY_TTL).build();
    List<Long> rawTxn = new ArrayList<>();
    List<Long> rawAcquire = new ArrayList<>();
    List<Long> rawRelease = new ArrayList<>();
    List<Long> rawLock = new ArrayList<>();
    List<Long> acquire = new ArrayList<>();
    List<Long> release = new ArrayList<>();
    List<Long> lock = new ArrayList<>();
    try (EtcdLockService service = new EtcdLockService(etcd, paths)) {
      for (int round = -WARM_UP_ROUNDS; round < samples; round++) {
        boolean timed = round >= 0;
        // the value the service would write, built outside the timers: the floor is etcd's work alone
        String value = LockContents.running(ACTION, LockHolder.NONE, Instant.now()).toJson();

        long txn = rawCreateTxn(etcd, txnKey, value);
        long[] raw = rawLockRound(etcd, rawLocks, value, LATENCY_TTL.getSeconds());

        long t0 = System.nanoTime();
        HeldLock held = service.lockNamed(name, lockOptions);
        long t1 = System.nanoTime();
        held.close();
        long t2 = System.nanoTime();

        if (timed) {
          rawTxn.add(txn);
          rawAcquire.add(raw[0]);
          rawRelease.add(raw[1]);
          rawLock.add(raw[0] + raw[1]);
          acquire.add(t1 - t0);
          release.add(t2 - t1);
          lock.add(t2 - t0);
        }
      }
    }
    return new Latency(Stats.ofNanos(rawTxn), Stats.ofNanos(rawAcquire), Stats.ofNanos(rawRelease),
        Stats.ofNanos(rawLock), Stats.ofNanos(acquire), Stats.ofNanos(release), Stats.ofNanos(lock));
  }

  /** The acquisition's create transaction without a lease, timed; then, untimed, the key's deletion. */
  private static long rawCreateTxn(Client etcd, String key, String value) throws InterruptedException {
    ByteSequence k = bytes(key);
    long t0 = System.nanoTime();
    TxnResponse created = await(etcd.getKVClient().txn()
        .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
        .Then(Op.put(k, bytes(value), PutOption.DEFAULT))
        .commit(), "the create transaction");
    long took = System.nanoTime() - t0;
    // a failed compare would be a read-only round trip, cheaper than the one measured as the floor
    requireCreated(created, key);
    await(etcd.getKVClient().delete(k), "deleting the transaction's key");
    return took;
  }

  /**
   * What {@link EtcdLockService} asks etcd to take an uncontended lock and to release it, issued
   * directly: grant, create the key under the lease, read the newest older key in line (none);
   * then revoke.
   *
   * @return nanoseconds of the acquiring part and of the revoke
   */
  private static long[] rawLockRound(Client etcd, String locksPrefix, String value, long ttlSeconds)
      throws InterruptedException {
    long t0 = System.nanoTime();
    long leaseId = await(etcd.getLeaseClient().grant(ttlSeconds), "granting a lease").getID();
    long t1;
    try {
      ByteSequence key = bytes(locksPrefix + leaseId);
      TxnResponse created = await(etcd.getKVClient().txn()
          .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
          .Then(Op.put(key, bytes(value), PutOption.builder().withLeaseId(leaseId).build()))
          .commit(), "the create transaction");
      requireCreated(created, locksPrefix + leaseId);
      long revision = created.getHeader().getRevision();
      GetResponse line = await(etcd.getKVClient().get(bytes(locksPrefix), GetOption.builder()
          .isPrefix(true)
          .withSortField(GetOption.SortTarget.MOD)
          .withSortOrder(GetOption.SortOrder.DESCEND)
          .withLimit(1)
          .withMaxModRevision(revision - 1)
          .build()), "reading the line");
      if (!line.getKvs().isEmpty()) {
        throw new IllegalStateException("the raw lock under " + locksPrefix + " found a key ahead of it; "
            + "the floor must be measured uncontended");
      }
      t1 = System.nanoTime();
    } catch (RuntimeException | InterruptedException e) {
      // the lease's key would otherwise stand in line for a TTL; the first failure is the one to see
      try {
        await(etcd.getLeaseClient().revoke(leaseId), "revoking the lease");
      } catch (RuntimeException | InterruptedException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    await(etcd.getLeaseClient().revoke(leaseId), "revoking the lease");
    long t2 = System.nanoTime();
    return new long[] {t1 - t0, t2 - t1};
  }

  private static void requireCreated(TxnResponse created, String key) {
    if (!created.isSucceeded()) {
      throw new IllegalStateException("the create transaction found " + key + " already there");
    }
  }

  private static Renewal measureRenewal(Client etcd, String base, TopoPaths paths, Options options)
      throws InterruptedException {
    LockLeaseTap tap = new LockLeaseTap(etcd);
    Map<String, String> lost = new ConcurrentHashMap<>();
    List<String> names = new ArrayList<>();
    List<HeldLock> held = new ArrayList<>();
    // the max hold must outlast the run: reaching it stops renewal on purpose, which would be a loss
    Duration maxHold = options.renewFor().multipliedBy(2).plus(Duration.ofMinutes(1));
    LockOptions shape = renewalOptions(options, maxHold, LockListener.NONE);
    long firstAcquired = System.nanoTime();
    try (EtcdLockService service = new EtcdLockService(tap, paths)) {
      try {
        for (int i = 0; i < options.renewLocks(); i++) {
          String name = base + "/renew-" + i;
          names.add(name);
          held.add(service.lockNamed(name, renewalOptions(options, maxHold,
              loss -> lost.putIfAbsent(name, after(loss.reason() + ": " + loss.message(), firstAcquired)))));
        }
        long holdStart = System.nanoTime();
        long holdEnd = holdStart + options.renewFor().toNanos();
        for (long left = holdEnd - holdStart; left > 0; left = holdEnd - System.nanoTime()) {
          TimeUnit.NANOSECONDS.sleep(left);
        }
        long endedAt = System.nanoTime();
        tap.stop();

        List<LockStatus> statuses = service.checkAll(held.stream().map(HeldLock::token).toList());
        Map<Long, List<Long>> sendTimes = tap.sendTimes(held.stream().map(h -> h.token().leaseId()).toList());
        List<String> reports = new ArrayList<>();
        List<Long> gaps = new ArrayList<>();
        long renewals = 0;
        for (int i = 0; i < held.size(); i++) {
          HeldLock h = held.get(i);
          List<Long> times = sendTimes.get(h.token().leaseId());
          renewals += Math.max(0, times.size() - 1);
          gapsOf(times, endedAt, gaps);
          String report = lossOf(h, lost.get(names.get(i)), statuses.get(i), times, firstAcquired);
          if (report != null) {
            reports.add(names.get(i) + ": " + report);
          }
        }
        return new Renewal(held.size(), shape.ttl(), shape.renewInterval(), Duration.ofNanos(endedAt - holdStart),
            renewals, tap.failedKeepAlives(), Stats.ofNanos(gaps), reports.size(), reports);
      } finally {
        releaseAll(held);
      }
    }
  }

  private static LockOptions renewalOptions(Options options, Duration maxHold, LockListener listener) {
    return LockOptions.builder().action(ACTION).ttl(options.renewTtl()).maxHold(maxHold).listener(listener).build();
  }

  /** Why the lock counts as lost, or null when nothing says it was. */
  private static String lossOf(HeldLock h, String reported, LockStatus atEnd, List<Long> sendTimes,
      long firstAcquired) {
    if (reported != null) {
      return reported;
    }
    if (h.lossFuture().isDone()) {
      return after("lost; the listener had not run yet", firstAcquired);
    }
    if (!atEnd.held()) {
      return "etcd at the end: " + atEnd.lossReason() + ": " + atEnd.message();
    }
    // isHeld also sees a renewal overdue locally, which etcd may not have acted on yet
    if (!h.isHeld()) {
      return "its handle no longer held it at the end";
    }
    if (sendTimes.isEmpty()) {
      // without its grant, nothing vouches for its renewals
      return "the tap saw neither its grant nor a renewal";
    }
    return null;
  }

  /** Gaps from the grant through each renewal; the last runs to the end, as a stall there is a gap too. */
  private static void gapsOf(List<Long> sendTimes, long endedAt, List<Long> gaps) {
    if (sendTimes.isEmpty()) {
      return;
    }
    long previous = sendTimes.get(0);
    for (long t : sendTimes.subList(1, sendTimes.size())) {
      gaps.add(t - previous);
      previous = t;
    }
    gaps.add(endedAt - previous);
  }

  private static String after(String what, long since) {
    return String.format(Locale.ROOT, "%s (%.1f s after the first acquisition)", what,
        (System.nanoTime() - since) / 1e9);
  }

  /** Releases every lock, trying all of them before failing with the first error. */
  private static void releaseAll(List<HeldLock> held) {
    InTurn.forEach(held, HeldLock::close);
  }

  private static void deletePrefix(Client etcd, String prefix) {
    try {
      etcd.getKVClient().delete(bytes(prefix), DeleteOption.builder().isPrefix(true).build())
          .get(CALL_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // nothing is left there unless a run failed, and then its lock keys expire with their leases
    }
  }

  private static <T> T await(CompletableFuture<T> future, String what) throws InterruptedException {
    try {
      return future.get(CALL_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw PointsmanException.unavailable("lock benchmark: " + what + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw PointsmanException.unavailable("lock benchmark: " + what + " took over " + CALL_TIMEOUT, e);
    }
  }

  /** The "## Locks" section of BENCHMARKS.md. */
  static String markdown(Figures f) {
    Renewal r = f.renewal();
    StringBuilder md = new StringBuilder();
    md.append("## Locks\n\n");
    md.append(String.format(Locale.ROOT, """
        A named lock is acquired (`EtcdLockService.lockNamed`) and released (`HeldLock.close`) on the
        sandbox's etcd, uncontended, one at a time from one thread, against the **etcd floor**: the same
        requests issued directly with jetcd, in the same order and each awaited before the next (lease
        grant, the create-if-absent transaction putting the lock key under the lease, the read of the
        newest older key in line; lease revoke). The bare create transaction (without lease, its key
        deleted untimed) is one write round trip. Each round does all three, so drift hits them alike;
        %d rounds are timed after %d untimed warm-up rounds. Times in ms, p50 / p99 / max.

        | | pointsman | etcd floor | p50 ratio |
        |---|---|---|---|
        """, f.acquire().count(), WARM_UP_ROUNDS));
    row(md, "acquire", f.acquire(), f.rawAcquire());
    row(md, "release", f.release(), f.rawRelease());
    row(md, "acquire + release", f.lock(), f.rawLock());
    md.append("| create transaction alone | – | ").append(f.rawTxn().summaryMillis()).append(" | |\n\n");

    md.append(String.format(Locale.ROOT, """
        Renewal: %d named locks with a TTL of %s held for %s while the service renews them on its own
        threads (every %s, a keep-alive and a read of the key); no lock is touched by the caller until the
        end, when etcd is asked whether each is still held, and a loss reported at any time counts. A tap
        on the jetcd lease client notes the send time of each grant and each successful keep-alive; a gap
        is the time between two of them for one lock, the last one running to the end of the hold.

        | locks | TTL | held for | renewals | failed renewals | gap between renewals p50 / p99 / max (ms) | losses |
        |---|---|---|---|---|---|---|
        | %d | %s | %s | %d | %d | %s | **%d** |
        """, r.locks(), seconds(r.ttl()), minutesOrSeconds(r.heldFor()), millis(r.renewInterval()), r.locks(),
        seconds(r.ttl()), minutesOrSeconds(r.heldFor()), r.renewals(), r.failedRenewals(), r.gaps().summaryMillis(),
        r.losses()));
    if (!r.lossReports().isEmpty()) {
      md.append("\nLost:\n\n");
      r.lossReports().stream().limit(20).forEach(report -> md.append("- ").append(report).append('\n'));
      if (r.lossReports().size() > 20) {
        md.append("- and ").append(r.lossReports().size() - 20).append(" more\n");
      }
    }
    return md.toString();
  }

  private static void row(StringBuilder md, String what, Stats ours, Stats floor) {
    md.append("| ").append(what).append(" | ").append(ours.summaryMillis()).append(" | ")
        .append(floor.summaryMillis()).append(" | ")
        .append(String.format(Locale.ROOT, "%.2f", (double) ours.p50().toNanos() / floor.p50().toNanos()))
        .append(" |\n");
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%d s", d.toSeconds());
  }

  private static String millis(Duration d) {
    return Stats.millis(d) + " ms";
  }

  private static String minutesOrSeconds(Duration d) {
    double s = d.toNanos() / 1e9;
    return s >= 120 ? String.format(Locale.ROOT, "%.1f min", s / 60) : String.format(Locale.ROOT, "%.1f s", s);
  }
}
