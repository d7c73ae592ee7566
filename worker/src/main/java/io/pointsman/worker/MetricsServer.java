package io.pointsman.worker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Prometheus endpoint: {@code GET /metrics} in the text exposition format, and
 * {@code GET /healthz} answering "ok" while the worker runs. The JDK's HTTP server on one thread.
 */
final class MetricsServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetricsServer.class);
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;

  private MetricsServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * @throws ConfigException when the port cannot be bound
   */
  static MetricsServer start(int port, PrometheusMeterRegistry registry) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(port), 0);
    } catch (IOException e) {
      throw new ConfigException("METRICS_PORT " + port + " cannot be bound: " + e.getMessage(), e);
    }
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "pointsman-metrics-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/metrics", exchange -> respond(exchange, PROMETHEUS_TEXT, registry.scrape()));
    server.createContext("/healthz", exchange -> respond(exchange, "text/plain; charset=utf-8", "ok\n"));
    server.start();
    log.info("Prometheus metrics on http://0.0.0.0:{}/metrics", server.getAddress().getPort());
    return new MetricsServer(server, executor);
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static void respond(HttpExchange exchange, String contentType, String body) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", contentType);
      exchange.sendResponseHeaders(200, exchange.getRequestMethod().equals("HEAD") ? -1 : bytes.length);
      if (!exchange.getRequestMethod().equals("HEAD")) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
