package io.pointsman.engine.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContextBuilder;
import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Builds jetcd clients from {@link EtcdOptions}; the one place that knows jetcd's builder. */
public final class EtcdClients {
  private EtcdClients() {}

  public static Client create(EtcdOptions options) {
    ClientBuilder b = Client.builder()
        .endpoints(options.endpoints().toArray(String[]::new))
        .connectTimeout(options.connectTimeout())
        // Fail calls rather than queue them forever while etcd is away: lock renewal must notice.
        .waitForReady(false);
    options.user().ifPresent(u -> b.user(ByteSequence.from(u, StandardCharsets.UTF_8)));
    options.password().ifPresent(p -> b.password(ByteSequence.from(p, StandardCharsets.UTF_8)));
    if (options.tls()) {
      try {
        SslContextBuilder ssl = GrpcSslContexts.forClient();
        options.caFile().ifPresent(ca -> ssl.trustManager(ca.toFile()));
        if (options.certFile().isPresent()) {
          ssl.keyManager(options.certFile().get().toFile(), options.keyFile().orElseThrow().toFile());
        }
        b.sslContext(ssl.build());
      } catch (IOException | RuntimeException e) {
        throw PointsmanException.invalidArgument("cannot set up TLS for etcd: " + e.getMessage());
      }
    }
    return b.build();
  }

  public static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  public static String string(ByteSequence b) {
    return b.toString(StandardCharsets.UTF_8);
  }
}
