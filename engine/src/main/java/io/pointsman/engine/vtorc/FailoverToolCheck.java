package io.pointsman.engine.vtorc;

import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Before a write window: asks every configured VTOrc about every shard of the window, and says why
 * the window must not open (a problem VTOrc sees there, so a recovery runs or is about to), or
 * nothing. A VTOrc that does not answer refuses the window too: pointsman cannot tell what it is
 * doing. With no VTOrc configured, it asks nobody.
 */
public final class FailoverToolCheck {
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  private final Supplier<List<String>> addresses;
  private final Duration timeout;
  private final HttpClient http;

  /** @param addresses {@code host:port} of each VTOrc's HTTP port, read at every check */
  public FailoverToolCheck(Supplier<List<String>> addresses, Duration timeout) {
    this.addresses = Objects.requireNonNull(addresses, "addresses");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
  }

  public static FailoverToolCheck of(List<String> addresses) {
    List<String> fixed = List.copyOf(addresses);
    return new FailoverToolCheck(() -> fixed, DEFAULT_TIMEOUT);
  }

  /**
   * Parses {@code VTORC_ADDRESSES}: comma-separated {@code host:port}, blanks ignored.
   *
   * @throws IllegalArgumentException naming the entry that is not {@code host:port}
   */
  public static List<String> parseAddresses(String value) {
    List<String> out = new ArrayList<>();
    if (value == null) {
      return out;
    }
    for (String part : value.split(",")) {
      String a = part.strip();
      if (a.isEmpty()) {
        continue;
      }
      int colon = a.lastIndexOf(':');
      if (colon <= 0 || colon == a.length() - 1 || a.contains("/") || !a.substring(colon + 1).matches("\\d{1,5}")
          || Integer.parseInt(a.substring(colon + 1)) > 65535) {
        throw new IllegalArgumentException("'" + a + "' is not host:port (VTOrc's HTTP port, e.g. 127.0.0.1:16000)");
      }
      out.add(a);
    }
    return out;
  }

  /**
   * @param shards {@code <keyspace>/<shard>} names
   * @return why the window must not open, naming the VTOrc, the shard and the problem; empty when
   *     every VTOrc sees no problem on any of the shards, or none is configured
   */
  public String refusal(List<String> shards) {
    List<String> reasons = new ArrayList<>();
    for (String address : addresses.get()) {
      VtorcClient vtorc = new VtorcClient(address, http, timeout);
      for (String name : shards) {
        int slash = name.indexOf('/');
        String keyspace = name.substring(0, slash);
        String shard = name.substring(slash + 1);
        try {
          vtorc.problems(keyspace, shard).forEach(p -> reasons.add(p.describe()));
        } catch (IOException e) {
          reasons.add("VTOrc " + address + " did not answer about " + name + " (" + (e.getMessage() == null ? e.toString() : e.getMessage())
              + "): pointsman cannot tell whether it is recovering that shard");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          reasons.add("interrupted while asking VTOrc " + address + " about " + name);
          return String.join("; ", reasons);
        }
      }
    }
    return String.join("; ", reasons);
  }
}
