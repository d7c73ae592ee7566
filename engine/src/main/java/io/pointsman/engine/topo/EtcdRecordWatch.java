package io.pointsman.engine.topo;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.trace.TimingTrace;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches one record. jetcd calls back on its event loop, where nothing may block, so every
 * callback only hands work to this watch's own thread, which decodes and delivers in order. When
 * the stream breaks it re-watches from the last seen revision + 1; after compaction it re-reads.
 *
 * <p>Only the watcher opened last is listened to. jetcd keeps retrying a broken watcher on its own
 * and reports every failed retry; were each report from a watcher already given up to start yet
 * another one, an etcd outage would multiply the watchers without bound, and their retries would
 * crowd out every other call of the client long after etcd is back.
 */
final class EtcdRecordWatch<T> implements TopoWatch {
  private static final Logger log = LoggerFactory.getLogger(EtcdRecordWatch.class);
  private static final Duration REWATCH_DELAY = Duration.ofMillis(500);

  private final Client client;
  private final RecordKey<T> key;
  private final Consumer<Optional<Versioned<T>>> listener;
  private final Function<RecordKey<T>, Optional<Versioned<T>>> reader;
  private final BiFunction<RecordKey<T>, KeyValue, Versioned<T>> decoder;
  private final ScheduledExecutorService thread;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Watch.Watcher watcher;
  private long lastRevision; // only touched on `thread`
  /** Counts the watchers opened; callbacks of any but the current one are ignored. Only touched on `thread`. */
  private long generation;

  private EtcdRecordWatch(Client client, RecordKey<T> key, Consumer<Optional<Versioned<T>>> listener,
      Function<RecordKey<T>, Optional<Versioned<T>>> reader, BiFunction<RecordKey<T>, KeyValue, Versioned<T>> decoder) {
    this.client = client;
    this.key = key;
    this.listener = listener;
    this.reader = reader;
    this.decoder = decoder;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "topo-watch " + key.key());
      t.setDaemon(true);
      return t;
    });
  }

  static <T> EtcdRecordWatch<T> start(Client client, RecordKey<T> key, Consumer<Optional<Versioned<T>>> listener,
      Function<RecordKey<T>, Optional<Versioned<T>>> reader, BiFunction<RecordKey<T>, KeyValue, Versioned<T>> decoder) {
    EtcdRecordWatch<T> w = new EtcdRecordWatch<>(client, key, listener, reader, decoder);
    w.thread.execute(w::readAndWatch);
    return w;
  }

  /** Reads the current state, delivers it, and watches from just after it. Runs on {@code thread}. */
  private void readAndWatch() {
    if (closed.get()) {
      return;
    }
    try {
      // The read's own revision is not exposed per key, so watch from the record's mod revision + 1,
      // or from the header revision when absent; a change in between is then still delivered.
      Optional<Versioned<T>> current = reader.apply(key);
      long from = current.map(Versioned::modRevision).orElse(0L);
      deliver(current);
      lastRevision = Math.max(lastRevision, from);
      openWatch(lastRevision + 1, current.isEmpty());
    } catch (RuntimeException e) {
      log.warn("watch of {} could not read the record, retrying: {}", key.key(), e.getMessage());
      scheduleRewatch(true);
    }
  }

  private void openWatch(long fromRevision, boolean fromNow) {
    WatchOption.Builder opt = WatchOption.builder().withPrevKV(false);
    if (!fromNow || fromRevision > 1) {
      opt.withRevision(fromRevision);
    }
    long mine = ++generation;
    Watch.Watcher opened = client.getWatchClient().watch(EtcdClients.bytes(key.key()), opt.build(),
        Watch.listener(resp -> hand(mine, () -> onEvents(resp)),
            err -> hand(mine, () -> onError(err)),
            () -> hand(mine, () -> scheduleRewatch(false))));
    watcher = opened;
    if (closed.get()) {
      // close() ran while this watcher was being opened and could not see it
      opened.close();
    }
  }

  /**
   * Hands a callback of the watcher of generation {@code from} to this watch's thread, where it
   * runs only if that watcher is still the current one; after close() there is nothing left to do.
   */
  private void hand(long from, Runnable work) {
    try {
      thread.execute(() -> {
        if (from == generation) {
          work.run();
        }
      });
    } catch (RejectedExecutionException closedAlready) {
      // the watch was closed; jetcd may still deliver a last event or the client's shutdown
    }
  }

  private void onEvents(WatchResponse resp) {
    if (closed.get()) {
      return;
    }
    for (WatchEvent ev : resp.getEvents()) {
      long rev = ev.getKeyValue().getModRevision();
      if (rev <= lastRevision && ev.getEventType() != WatchEvent.EventType.DELETE) {
        continue; // already delivered, e.g. after a re-watch
      }
      lastRevision = Math.max(lastRevision, rev);
      if (ev.getEventType() == WatchEvent.EventType.DELETE) {
        deliver(Optional.empty());
      } else {
        try {
          long started = TimingTrace.start();
          Versioned<T> value = decoder.apply(key, ev.getKeyValue());
          TimingTrace.took("watch.decode", started, () -> key.key() + " at revision " + value.modRevision());
          deliver(Optional.of(value));
        } catch (RuntimeException e) {
          log.warn("watch of {} skipped an undecodable value at revision {}: {}", key.key(), rev, e.getMessage());
        }
      }
    }
  }

  private void onError(Throwable err) {
    if (closed.get()) {
      return;
    }
    boolean compacted = err instanceof CompactedException || err.getCause() instanceof CompactedException;
    log.warn("watch of {} broke ({}), re-watching", key.key(), err.getMessage());
    scheduleRewatch(compacted);
  }

  private void scheduleRewatch(boolean reread) {
    if (closed.get()) {
      return;
    }
    generation++; // what the given-up watcher still reports is of no interest
    Watch.Watcher old = watcher;
    if (old != null) {
      old.close();
    }
    thread.schedule(() -> {
      if (reread) {
        readAndWatch();
      } else if (!closed.get()) {
        openWatch(lastRevision + 1, false);
      }
    }, REWATCH_DELAY.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void deliver(Optional<Versioned<T>> value) {
    try {
      listener.accept(value);
    } catch (RuntimeException e) {
      log.warn("listener of watch {} failed: {}", key.key(), e.toString());
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      Watch.Watcher w = watcher;
      if (w != null) {
        w.close();
      }
      thread.shutdownNow();
    }
  }
}
