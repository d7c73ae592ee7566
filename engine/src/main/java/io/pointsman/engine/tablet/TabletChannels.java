package io.pointsman.engine.tablet;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NegotiationType;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Opens gRPC channels to vttablets, plaintext or TLS as {@link TabletRpcOptions#tls()} says. The TLS
 * files are read once, when this is made, so a missing, unreadable or malformed file fails the
 * client's creation naming the setting, not the first RPC of some later step.
 */
final class TabletChannels {
  private final TabletRpcOptions options;
  private final Optional<SslContext> ssl;

  TabletChannels(TabletRpcOptions options) {
    this.options = options;
    this.ssl = options.tls().enabled() ? Optional.of(sslContext(options.tls())) : Optional.empty();
  }

  ManagedChannel open(TabletEndpoint tablet) {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress(tablet.host(), tablet.grpcPort())
        .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.toIntExact(options.connectTimeout().toMillis()));
    if (ssl.isEmpty()) {
      return b.usePlaintext().build();
    }
    b.negotiationType(NegotiationType.TLS).sslContext(ssl.get());
    // the authority is both the name TLS checks the certificate against and the SNI sent
    options.tls().serverName().ifPresent(b::overrideAuthority);
    return b.build();
  }

  private static SslContext sslContext(TabletTls tls) {
    SslContextBuilder b = GrpcSslContexts.forClient();
    if (tls.caFile().isPresent()) {
      Path ca = readable(TabletTls.CA_FILE, tls.caFile().get());
      try {
        b.trustManager(ca.toFile());
      } catch (IllegalArgumentException e) {
        throw PointsmanException.invalidArgument(TabletTls.CA_FILE + " " + ca + " holds no PEM certificate: " + e.getMessage());
      }
    }
    if (tls.certFile().isPresent()) {
      Path cert = readable(TabletTls.CERT_FILE, tls.certFile().get());
      Path key = readable(TabletTls.KEY_FILE, tls.keyFile().orElseThrow());
      try {
        b.keyManager(cert.toFile(), key.toFile());
      } catch (IllegalArgumentException e) {
        throw PointsmanException.invalidArgument(TabletTls.CERT_FILE + " " + cert + " and " + TabletTls.KEY_FILE + " " + key
            + " are not a PEM certificate and its PKCS#8 key: " + e.getMessage());
      }
    }
    try {
      return b.build();
    } catch (IOException | RuntimeException e) {
      throw PointsmanException.invalidArgument("cannot set up TLS for vttablet gRPC (" + TabletTls.CA_FILE + ", "
          + TabletTls.CERT_FILE + ", " + TabletTls.KEY_FILE + "): " + e.getMessage());
    }
  }

  private static Path readable(String setting, Path file) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw PointsmanException.invalidArgument(setting + " names " + file + ", which is not a readable file");
    }
    return file;
  }
}
