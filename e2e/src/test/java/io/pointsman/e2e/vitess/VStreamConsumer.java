package io.pointsman.e2e.vitess;

import binlogdata.Binlogdata.Filter;
import binlogdata.Binlogdata.Journal;
import binlogdata.Binlogdata.RowChange;
import binlogdata.Binlogdata.Rule;
import binlogdata.Binlogdata.VEvent;
import binlogdata.Binlogdata.VEventType;
import binlogdata.Binlogdata.VGtid;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.vitess.proto.Query;
import io.vitess.proto.Topodata;
import io.vitess.proto.Vtgate.VStreamFlags;
import io.vitess.proto.Vtgate.VStreamRequest;
import io.vitess.proto.Vtgate.VStreamResponse;
import io.vitess.proto.grpc.VitessGrpc;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * One change-stream consumer of vtgate's VStream API, as an application (a CDC connector) runs it:
 * from a VGTID, for the rows of one table, with {@code stop_on_reshard}, so that vtgate hands it the
 * resharding journal and ends the stream instead of moving on to the new shards by itself. It keeps
 * what it received: the ids of the table's row changes in order (the first column, the primary key),
 * the journals with the shard that sent each, the last VGTID (where a consumer would resume), and how
 * the stream ended.
 */
final class VStreamConsumer implements AutoCloseable {
  /** A JOURNAL event, the shard whose stream delivered it, and when it arrived ({@link System#nanoTime()}). */
  record JournalEvent(String keyspace, String shard, Journal journal, long receivedNanos) {}

  /** The last VGTID vtgate sent and how many row changes had arrived up to it: where a consumer resumes. */
  record Checkpoint(VGtid vgtid, int rows) {}

  /** How the stream ended: OK (vtgate ended it) or the gRPC status it failed with. */
  record Ending(Status status) {
    boolean ok() {
      return status.isOk();
    }
  }

  private final String from;
  private final List<Long> rowIds = new ArrayList<>();
  private final List<JournalEvent> journals = new ArrayList<>();
  private Checkpoint checkpoint;
  private final Map<VEventType, Integer> eventCounts = new EnumMap<>(VEventType.class);
  private final CompletableFuture<Ending> ended = new CompletableFuture<>();
  private volatile ClientCallStreamObserver<VStreamRequest> call;

  private VStreamConsumer(String from) {
    this.from = from;
  }

  /** Opens a VStream from {@code from} (keyspace, shard and GTID, or {@code current}) for {@code table}'s rows. */
  static VStreamConsumer open(ManagedChannel vtgate, VGtid from, String table) {
    VStreamConsumer c = new VStreamConsumer(describe(from));
    VStreamRequest request = VStreamRequest.newBuilder()
        // the cluster has primaries only; a non-serving primary still streams its binlog
        .setTabletType(Topodata.TabletType.PRIMARY)
        .setVgtid(from)
        .setFilter(Filter.newBuilder().addRules(Rule.newBuilder().setMatch(table)
            .setFilter("select * from " + table)))
        .setFlags(VStreamFlags.newBuilder().setStopOnReshard(true))
        .build();
    VitessGrpc.newStub(vtgate).vStream(request, c.observer());
    return c;
  }

  /** Text form of a VGTID, {@code ks/shard@gtid,...}, for messages. */
  static String describe(VGtid vgtid) {
    return vgtid.getShardGtidsList().stream().map(s -> s.getKeyspace() + "/" + s.getShard() + "@" + s.getGtid())
        .collect(Collectors.joining(", "));
  }

  private ClientResponseObserver<VStreamRequest, VStreamResponse> observer() {
    return new ClientResponseObserver<>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<VStreamRequest> requestStream) {
        call = requestStream;
      }

      @Override
      public void onNext(VStreamResponse response) {
        for (VEvent e : response.getEventsList()) {
          take(e);
        }
      }

      @Override
      public void onError(Throwable t) {
        ended.complete(new Ending(Status.fromThrowable(t)));
      }

      @Override
      public void onCompleted() {
        ended.complete(new Ending(Status.OK));
      }
    };
  }

  private synchronized void take(VEvent e) {
    eventCounts.merge(e.getType(), 1, Integer::sum);
    if (e.getType() == VEventType.ROW) {
      for (RowChange change : e.getRowEvent().getRowChangesList()) {
        Query.Row image = change.hasAfter() ? change.getAfter() : change.getBefore();
        rowIds.add(firstColumn(image));
      }
    } else if (e.getType() == VEventType.JOURNAL) {
      journals.add(new JournalEvent(e.getKeyspace(), e.getShard(), e.getJournal(), System.nanoTime()));
    } else if (e.getType() == VEventType.VGTID) {
      // vtgate sends a transaction's VGTID after its rows: rows.size() counts them all
      checkpoint = new Checkpoint(e.getVgtid(), rowIds.size());
    }
  }

  /** A row image is its values' lengths and their bytes run together; the first value is the id. */
  private static long firstColumn(Query.Row row) {
    int length = Math.toIntExact(row.getLengths(0));
    return Long.parseLong(row.getValues().substring(0, length).toString(StandardCharsets.UTF_8));
  }

  synchronized List<Long> rowIds() {
    return List.copyOf(rowIds);
  }

  synchronized List<JournalEvent> journals() {
    return List.copyOf(journals);
  }

  /** The last VGTID vtgate sent, none before the first transaction. */
  synchronized Optional<Checkpoint> checkpoint() {
    return Optional.ofNullable(checkpoint);
  }

  CompletableFuture<Ending> ended() {
    return ended;
  }

  /** What it received and how it ended so far, for a failure's message. */
  synchronized String state() {
    return this + ": events " + eventCounts + ", " + rowIds.size() + " row changes, " + journals.size()
        + " journals, " + (ended.isDone() ? "ended " + ended.join().status() : "running");
  }

  @Override
  public String toString() {
    return "VStream from " + from;
  }

  /** Cancels the stream if it still runs. */
  @Override
  public void close() {
    ClientCallStreamObserver<VStreamRequest> c = call;
    if (c != null && !ended.isDone()) {
      c.cancel("consumer closed", null);
    }
  }
}
