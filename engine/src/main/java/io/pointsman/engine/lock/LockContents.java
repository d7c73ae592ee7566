package io.pointsman.engine.lock;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Shown;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * The JSON value of a lock key. The first six fields are the ones Vitess writes ({@code topo.Lock}),
 * so {@code vtctldclient} shows pointsman's locks like its own; the Temporal fields name the
 * execution that holds the lock. Unknown fields are ignored so any Vitess version's value parses.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({"Action", "HostName", "UserName", "Time", "Options", "Status",
    "TemporalNamespace", "TemporalWorkflowId", "TemporalRunId"})
public record LockContents(
    @JsonProperty("Action") String action,
    @JsonProperty("HostName") String hostName,
    @JsonProperty("UserName") String userName,
    @JsonProperty("Time") String time,
    @JsonProperty("Options") Map<String, Object> options,
    @JsonProperty("Status") String status,
    @JsonProperty("TemporalNamespace") String temporalNamespace,
    @JsonProperty("TemporalWorkflowId") String temporalWorkflowId,
    @JsonProperty("TemporalRunId") String temporalRunId) {

  /** Vitess never rewrites the stored value on unlock, so a stored lock always says Running. */
  public static final String RUNNING = "Running";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The value for a lock taken now by this process for {@code action} on behalf of {@code holder}. */
  public static LockContents running(String action, LockHolder holder, Instant now) {
    return new LockContents(action, Host.NAME, Host.USER, now.truncatedTo(ChronoUnit.SECONDS).toString(),
        Map.of(), RUNNING, holder.temporalNamespace(), holder.workflowId(), holder.runId());
  }

  /** Parses a lock value written by pointsman or Vitess; empty when it is not such JSON. */
  public static Optional<LockContents> parse(String json) {
    try {
      return Optional.ofNullable(JSON.readValue(json, LockContents.class));
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }

  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw PointsmanException.internal("cannot write lock contents as JSON", e);
    }
  }

  /**
   * One line naming the holder, for messages such as a lock timeout. Any tool can write a lock
   * value, so each field is shown escaped and cut ({@link Shown}), never as it came.
   */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append(shown(action)).append(" on ").append(shown(hostName)).append(" as ").append(shown(userName))
        .append(" since ").append(shown(time));
    if (temporalWorkflowId != null) {
      sb.append(", workflow ").append(shown(temporalNamespace)).append('/').append(shown(temporalWorkflowId));
      if (temporalRunId != null) {
        sb.append('/').append(shown(temporalRunId));
      }
    }
    return sb.toString();
  }

  private static String shown(String field) {
    return Shown.text(field, FIELD_SHOWN);
  }

  /** Vitess's fields are a few dozen characters; a workflow id is at most a few hundred. */
  private static final int FIELD_SHOWN = 120;

  /** Looked up once: resolving the host name can be slow, and it does not change. */
  private static final class Host {
    static final String NAME = hostName();
    static final String USER = Optional.ofNullable(System.getProperty("user.name")).orElse("unknown");

    private static String hostName() {
      String env = System.getenv("HOSTNAME");
      if (env != null && !env.isBlank()) {
        return env;
      }
      try {
        return InetAddress.getLocalHost().getHostName();
      } catch (UnknownHostException e) {
        return "unknown";
      }
    }
  }
}
