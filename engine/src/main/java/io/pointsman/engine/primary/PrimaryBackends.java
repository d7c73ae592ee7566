package io.pointsman.engine.primary;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Optional;
import java.util.function.Function;

/**
 * Picks the ports that serve a shard's primary: the tablet adapters where a vttablet runs (its
 * Tablet record carries a gRPC port), direct MySQL where none does (the sandbox). A shard's world
 * does not change while a worker runs, so the choice is remembered once the primary's record said.
 */
public final class PrimaryBackends {
  private final PrimaryBackend backend;
  private final PrimaryPorts direct;
  private final PrimaryPorts tablet;
  private final Function<ShardRef, Optional<Boolean>> servesGrpc;
  private final Map<ShardRef, PrimaryPorts> chosen = new ConcurrentHashMap<>();

  /**
   * @param servesGrpc whether the shard's primary record has a gRPC port; empty when the shard has no
   *     primary record yet (direct MySQL then, not remembered)
   */
  public PrimaryBackends(PrimaryBackend backend, PrimaryPorts direct, PrimaryPorts tablet,
      Function<ShardRef, Optional<Boolean>> servesGrpc) {
    this.backend = Objects.requireNonNull(backend, "backend");
    this.direct = Objects.requireNonNull(direct, "direct");
    this.tablet = Objects.requireNonNull(tablet, "tablet");
    this.servesGrpc = Objects.requireNonNull(servesGrpc, "servesGrpc");
  }

  /** Whether vttablet serves the shard's primary (else its MySQL is written directly). */
  public boolean byTablet(ShardRef shard) {
    return of(shard) == tablet;
  }

  /** The ports serving the shard's primary. */
  public PrimaryPorts of(ShardRef shard) {
    switch (backend) {
      case TABLET:
        return tablet;
      case DIRECT:
        return direct;
      default:
        PrimaryPorts known = chosen.get(shard);
        if (known != null) {
          return known;
        }
        Optional<Boolean> grpc = servesGrpc.apply(shard);
        if (grpc.isEmpty()) {
          return direct;
        }
        PrimaryPorts ports = grpc.get() ? tablet : direct;
        chosen.put(shard, ports);
        return ports;
    }
  }
}
