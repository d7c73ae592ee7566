package io.pointsman.bench;

import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import java.util.List;

/**
 * What one workflow run costs Temporal: its history's events, the bytes of the whole history as the
 * server stores and sends it, and the bytes of the payloads in it (inputs, results, markers).
 */
record HistoryCost(int events, long historyBytes, long payloadBytes) {

  static HistoryCost of(WorkflowExecutionHistory history) {
    List<HistoryEvent> events = history.getEvents();
    long payloads = 0;
    for (HistoryEvent e : events) {
      payloads += payloadBytes(e);
    }
    return new HistoryCost(events.size(), history.getHistory().getSerializedSize(), payloads);
  }

  /** Sums the data of every Payload reachable from the event's attributes. */
  private static long payloadBytes(com.google.protobuf.Message message) {
    long sum = 0;
    for (var field : message.getAllFields().entrySet()) {
      Object value = field.getValue();
      if (value instanceof List<?> list) {
        for (Object item : list) {
          sum += bytesOf(item);
        }
      } else {
        sum += bytesOf(value);
      }
    }
    return sum;
  }

  private static long bytesOf(Object value) {
    if (value instanceof Payload p) {
      return p.getData().size();
    }
    if (value instanceof Payloads ps) {
      return ps.getPayloadsList().stream().mapToLong(p -> p.getData().size()).sum();
    }
    if (value instanceof com.google.protobuf.Message m) {
      return payloadBytes(m);
    }
    return 0;
  }
}
