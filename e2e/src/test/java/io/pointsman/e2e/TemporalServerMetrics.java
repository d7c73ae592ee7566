package io.pointsman.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Reads a counter from a real Temporal server's own metrics (Prometheus's text format). */
final class TemporalServerMetrics {
  private final String url;
  private final HttpClient http = HttpClient.newHttpClient();

  TemporalServerMetrics(String url) {
    this.url = url;
  }

  /**
   * The sum of {@code name}'s series labelled with {@code taskQueue}; 0 before the server first
   * counted one (it lists a counter only once it has moved).
   */
  long counter(String name, String taskQueue) {
    String body;
    try {
      body = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + url + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading " + url, e);
    }
    String label = "taskqueue=\"" + taskQueue + "\"";
    return Math.round(body.lines()
        .filter(l -> l.startsWith(name + "{") && l.contains(label))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum());
  }
}
