package io.pointsman.worker;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.client.TemporalConnection;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesResponse;
import io.temporal.common.SearchAttributeKey;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers pointsman's search attributes (all Keyword) in the worker's namespace when the server
 * lacks them; the workflows upsert them from their first step, and a server without them fails
 * those workflow tasks. Waits for the server while it is unavailable (a worker may start first).
 */
public final class SearchAttributeSetup {
  private static final Logger log = LoggerFactory.getLogger(SearchAttributeSetup.class);
  private static final Set<Status.Code> NOT_YET = EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED);
  private static final Duration RPC_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration RETRY_MIN = Duration.ofMillis(250);
  private static final Duration RETRY_MAX = Duration.ofSeconds(5);

  private SearchAttributeSetup() {}

  /**
   * @param wait how long to keep trying while the server is unavailable
   * @return the attributes it added (empty when the server had them all)
   * @throws IllegalStateException when an attribute exists with another type, or the server never answered
   */
  public static List<String> ensure(TemporalConnection temporal, Duration wait) {
    String namespace = temporal.options().namespace();
    OperatorServiceStubsOptions.Builder b = OperatorServiceStubsOptions.newBuilder()
        .setChannel(temporal.service().getRawChannel());
    temporal.options().apiKey().ifPresent(key -> b.addApiKey(() -> key));
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(b.validateAndBuildWithDefaults());
    try {
      long deadline = System.nanoTime() + wait.toNanos();
      Duration backoff = RETRY_MIN;
      while (true) {
        try {
          return ensureOnce(operator, namespace);
        } catch (StatusRuntimeException e) {
          if (!NOT_YET.contains(e.getStatus().getCode()) || System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("cannot register the search attributes " + names() + " in namespace "
                + namespace + " at " + temporal.options().address() + ": " + e.getStatus(), e);
          }
          log.info("Temporal at {} is not answering yet ({}); trying again in {}", temporal.options().address(),
              e.getStatus().getCode(), backoff);
          sleep(backoff);
          backoff = backoff.multipliedBy(2).compareTo(RETRY_MAX) > 0 ? RETRY_MAX : backoff.multipliedBy(2);
        }
      }
    } finally {
      operator.shutdown();
    }
  }

  private static List<String> ensureOnce(OperatorServiceStubs operator, String namespace) {
    Map<String, IndexedValueType> existing = existing(operator, namespace);
    List<String> added = new ArrayList<>();
    for (SearchAttributeKey<String> key : Pointsman.SEARCH_ATTRIBUTES) {
      IndexedValueType type = existing.get(key.getName());
      if (type == IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD) {
        continue;
      }
      if (type != null) {
        throw new IllegalStateException("search attribute " + key.getName() + " exists in namespace " + namespace
            + " as " + type + "; pointsman needs it as Keyword");
      }
      try {
        operator.blockingStub().withDeadlineAfter(RPC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .addSearchAttributes(AddSearchAttributesRequest.newBuilder().setNamespace(namespace)
                .putSearchAttributes(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD).build());
        added.add(key.getName());
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
          throw e;
        }
      }
    }
    if (added.isEmpty()) {
      log.info("Search attributes {} are registered in namespace {}", names(), namespace);
    } else {
      log.info("Registered search attributes {} (Keyword) in namespace {}", added, namespace);
    }
    return added;
  }

  /**
   * The custom attributes the server has; empty when it cannot list them (Temporal's test server
   * answers UNIMPLEMENTED), in which case every attribute is added and ALREADY_EXISTS is fine.
   */
  private static Map<String, IndexedValueType> existing(OperatorServiceStubs operator, String namespace) {
    try {
      ListSearchAttributesResponse r = operator.blockingStub()
          .withDeadlineAfter(RPC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .listSearchAttributes(ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build());
      return new HashMap<>(r.getCustomAttributesMap());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        return Map.of();
      }
      throw e;
    }
  }

  private static List<String> names() {
    return Pointsman.SEARCH_ATTRIBUTES.stream().map(SearchAttributeKey::getName).toList();
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis()); // retry backoff while the server starts; not a wait for an outcome
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Temporal", e);
    }
  }
}
