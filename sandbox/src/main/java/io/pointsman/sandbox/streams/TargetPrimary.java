package io.pointsman.sandbox.streams;

import io.pointsman.api.names.Names;
import java.util.Objects;

/**
 * A primary whose {@code vreplication} table the runner executes: where its MySQL listens and the
 * sidecar database holding the stream rows ({@code _vt} unless the keyspace overrides it).
 */
public record TargetPrimary(String host, int port, String sidecarDb) {
  public TargetPrimary {
    Objects.requireNonNull(host, "host");
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is outside 1..65535");
    }
    Names.database(sidecarDb);
  }

  @Override
  public String toString() {
    return host + ":" + port + "/" + sidecarDb;
  }
}
