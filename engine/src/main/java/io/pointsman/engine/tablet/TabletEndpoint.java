package io.pointsman.engine.tablet;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.TabletAlias;
import java.util.Objects;

/**
 * A vttablet to call: its alias (for messages and for the topology) and the {@code host:port} of its
 * gRPC server, as the tablet record's {@code hostname} and {@code port_map["grpc"]} give them.
 */
public record TabletEndpoint(TabletAlias alias, String host, int grpcPort) {
  public TabletEndpoint {
    Objects.requireNonNull(alias, "alias");
    if (host == null || host.isBlank()) {
      throw PointsmanException.invalidArgument("tablet " + alias + " has no host name");
    }
    if (grpcPort < 1 || grpcPort > 65535) {
      throw PointsmanException.invalidArgument("tablet " + alias + " has gRPC port " + grpcPort + ", not 1..65535");
    }
  }

  /** Parses {@code host:port} (an IPv6 host in brackets) for the tablet {@code alias}. */
  public static TabletEndpoint of(String alias, String grpcAddress) {
    TabletAlias a = TabletAlias.parse(alias);
    int colon = grpcAddress == null ? -1 : grpcAddress.lastIndexOf(':');
    if (colon <= 0 || colon == grpcAddress.length() - 1) {
      throw PointsmanException.invalidArgument("gRPC address '" + grpcAddress + "' of tablet " + alias + " is not host:port");
    }
    String host = grpcAddress.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      return new TabletEndpoint(a, host, Integer.parseInt(grpcAddress.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw PointsmanException.invalidArgument("gRPC address '" + grpcAddress + "' of tablet " + alias + " has a port that is not a number");
    }
  }

  /** {@code host:port}, the form gRPC targets and log lines use. */
  public String address() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + grpcPort;
  }

  @Override
  public String toString() {
    return alias + " (" + address() + ")";
  }
}
