package io.pointsman.engine.lock;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Fault injection etcd cannot do by itself: the request of one gRPC method reaches the server and
 * is carried out, but its answer reaches the client only after a delay, as after a slow network
 * or a long GC pause in the client. Armed for one call at a time.
 */
final class DelayedResponses implements ClientInterceptor, AutoCloseable {
  private final String fullMethodName;
  private final AtomicReference<Duration> next = new AtomicReference<>();
  /** One thread, so a call's headers, message and close reach the client in their order. */
  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "delayed-etcd-responses");
    t.setDaemon(true);
    return t;
  });

  /** @param fullMethodName e.g. {@code etcdserverpb.KV/Txn} */
  DelayedResponses(String fullMethodName) {
    this.fullMethodName = fullMethodName;
  }

  /** The next call of the method gets its answer {@code delay} after it was sent. */
  void delayNext(Duration delay) {
    next.set(delay);
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel channel) {
    ClientCall<Q, R> call = channel.newCall(method, options);
    if (!method.getFullMethodName().equals(fullMethodName)) {
      return call;
    }
    Duration delay = next.getAndSet(null);
    if (delay == null) {
      return call;
    }
    return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        long releaseAt = System.nanoTime() + delay.toNanos();
        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
          @Override
          public void onHeaders(Metadata h) {
            at(releaseAt, () -> super.onHeaders(h));
          }

          @Override
          public void onMessage(R message) {
            at(releaseAt, () -> super.onMessage(message));
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            at(releaseAt, () -> super.onClose(status, trailers));
          }
        }, headers);
      }
    };
  }

  private void at(long releaseAtNanos, Runnable r) {
    // equal times run in submission order on the one thread
    later.schedule(r, Math.max(0, releaseAtNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  @Override
  public void close() {
    later.shutdownNow();
  }
}
