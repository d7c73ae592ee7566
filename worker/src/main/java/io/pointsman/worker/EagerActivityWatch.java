package io.pointsman.worker;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.temporal.api.command.v1.Command;
import io.temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest;
import io.temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells whether the Temporal server hands this worker the activities it asks to run eagerly. The SDK
 * asks it for each activity a workflow task schedules on the worker's own task queue (a free slot
 * reserved); the server does so only with {@code system.enableActivityEagerExecution} on for the
 * namespace, else the activity waits for a trip through matching: a write switch's two holdLocks
 * hand-overs are on its critical path (docs/real-temporal.md). Seen on the worker's own calls, as
 * the setting cannot be read from a client: the eager requests in each RespondWorkflowTaskCompleted
 * and the activity tasks in its answer. Once {@link #UNANSWERED} requests got none, it warns once.
 */
public final class EagerActivityWatch implements ClientInterceptor {
  /** One write switch asks twice (its two holdLocks); the server answers every one when the setting is on. */
  static final int UNANSWERED = 2;
  private static final Logger log = LoggerFactory.getLogger(EagerActivityWatch.class);
  private static final String METHOD = WorkflowServiceGrpc.getRespondWorkflowTaskCompletedMethod().getFullMethodName();

  private final String namespace;
  private final boolean warns;
  private final AtomicLong requested = new AtomicLong();
  private final AtomicLong received = new AtomicLong();
  private final AtomicReference<String> warning = new AtomicReference<>();

  public EagerActivityWatch(String namespace) {
    this(namespace, true);
  }

  /**
   * @param warns false where the server cannot hand activities out eagerly whatever its settings
   *     (the SDK's in-memory test server of dev mode): the counters only, no advice to change one
   */
  public EagerActivityWatch(String namespace, boolean warns) {
    this.namespace = namespace;
    this.warns = warns;
  }

  /** Whether it warns when the server hands out nothing eagerly. */
  public boolean warns() {
    return warns;
  }

  /** Activities this worker asked the server to hand it eagerly, in answered workflow task completions. */
  public long requested() {
    return requested.get();
  }

  /** Activities the server handed this worker eagerly. */
  public long received() {
    return received.get();
  }

  /** The warning given, once the server had handed out none of {@link #UNANSWERED} requests. */
  public Optional<String> warning() {
    return Optional.ofNullable(warning.get());
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    ClientCall<Q, R> call = next.newCall(method, options);
    return METHOD.equals(method.getFullMethodName()) ? new Watched<>(call) : call;
  }

  private void answered(long asked, long handed) {
    requested.addAndGet(asked);
    received.addAndGet(handed);
    if (warns && received.get() == 0 && requested.get() >= UNANSWERED) {
      String text = "the Temporal server handed this worker none of the " + requested.get() + " activities it"
          + " asked to start eagerly: set system.enableActivityEagerExecution to true for namespace " + namespace
          + " in its dynamic config, else each lock hand-over of a switch waits for a trip through matching"
          + " (docs/real-temporal.md)";
      if (warning.compareAndSet(null, text)) {
        log.warn(text);
      }
    }
  }

  private static long eagerRequests(RespondWorkflowTaskCompletedRequest request) {
    return request.getCommandsList().stream()
        .filter(Command::hasScheduleActivityTaskCommandAttributes)
        .filter(c -> c.getScheduleActivityTaskCommandAttributes().getRequestEagerExecution())
        .count();
  }

  /** One RespondWorkflowTaskCompleted call: what it asked for, counted with the answer. */
  private final class Watched<Q, R> extends ForwardingClientCall.SimpleForwardingClientCall<Q, R> {
    private volatile long asked;

    Watched(ClientCall<Q, R> call) {
      super(call);
    }

    @Override
    public void start(Listener<R> listener, Metadata headers) {
      super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
        @Override
        public void onMessage(R message) {
          if (message instanceof RespondWorkflowTaskCompletedResponse answer) {
            answered(asked, answer.getActivityTasksCount());
          }
          super.onMessage(message);
        }
      }, headers);
    }

    @Override
    public void sendMessage(Q message) {
      if (message instanceof RespondWorkflowTaskCompletedRequest request) {
        asked = eagerRequests(request);
      }
      super.sendMessage(message);
    }
  }
}
