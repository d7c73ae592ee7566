package io.pointsman.cli;

import io.pointsman.api.workflows.Pointsman;
import io.pointsman.workflows.WorkflowRegistration;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testserver.TestServer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's test server on a port of this machine, with pointsman's search attributes and a worker
 * running the real workflows over an unreachable topology ({@link UnreachableTopology}): an action
 * starts, tracks its first step and then waits to try it again, as when etcd and the primaries are
 * down. (Activities had to be registered once the reads became local activities: a workflow worker
 * without them never finishes the task that runs one, and answers no query.) A second worker, on
 * {@link CannedReads#TASK_QUEUE}, answers the reads before the locks, so a dry run started there
 * (CLI {@code --task-queue}) ends with a result.
 */
final class LocalTemporal implements AutoCloseable {
  final String address;
  final WorkflowClient client;
  private final TestServer.PortBoundTestServer server;
  private final WorkflowServiceStubs service;
  private final WorkerFactory factory;

  LocalTemporal() {
    int port = freePort();
    this.server = TestServer.createPortBoundServer(port);
    this.address = "127.0.0.1:" + port;
    this.service = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setTarget(address)
        .build());
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(OperatorServiceStubsOptions.newBuilder()
        .setChannel(service.getRawChannel()).validateAndBuildWithDefaults());
    AddSearchAttributesRequest.Builder add = AddSearchAttributesRequest.newBuilder().setNamespace("default");
    Pointsman.SEARCH_ATTRIBUTES.forEach(k -> add.putSearchAttributes(k.getName(),
        IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
    operator.blockingStub().addSearchAttributes(add.build());
    operator.shutdown();
    this.client = WorkflowClient.newInstance(service);
    this.factory = WorkerFactory.newInstance(client);
    Worker worker = factory.newWorker(Pointsman.TASK_QUEUE);
    WorkflowRegistration.registerWorkflows(worker);
    worker.registerActivitiesImplementations(new UnreachableTopology());
    Worker readsOnly = factory.newWorker(CannedReads.TASK_QUEUE);
    WorkflowRegistration.registerWorkflows(readsOnly);
    readsOnly.registerActivitiesImplementations(new CannedReads());
    factory.start();
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    factory.shutdownNow();
    factory.awaitTermination(10, TimeUnit.SECONDS);
    service.shutdownNow();
    server.close();
  }
}
