package io.pointsman.e2e.vitess;

import static io.pointsman.engine.net.LoopbackPorts.freePort;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real VTOrc of Vitess 24 on loopback, watching the test's topology, with recoveries switched off
 * ({@code --allow-recovery=false}): it analyses and reports what it sees, and repairs nothing, so a
 * test can show pointsman what VTOrc reports without VTOrc changing the topology under it.
 */
public final class Vtorc implements AutoCloseable {
  private final Process process;
  private final Path dir;
  private final String httpAddress;

  private Vtorc(Process process, Path dir, String httpAddress) {
    this.process = process;
    this.dir = dir;
    this.httpAddress = httpAddress;
  }

  /** Starts VTOrc on etcd {@code etcdEndpoint} under {@code globalRoot}; waits until its HTTP API answers. */
  public static Vtorc start(String etcdEndpoint, String globalRoot, String cell) throws IOException {
    Path dir = Files.createTempDirectory("pointsman-vtorc");
    int http = freePort();
    List<String> cmd = new ArrayList<>(VitessBinaries.nonRootPrefix());
    cmd.addAll(List.of(VitessBinaries.binary("vtorc").toString(),
        "--topo-implementation", "etcd2",
        "--topo-global-server-address", etcdEndpoint.replaceFirst("^https?://", ""),
        "--topo-global-root", globalRoot,
        "--cell", cell,
        "--allow-recovery=false",
        "--instance-poll-time", "1s",
        "--topo-information-refresh-duration", "1s",
        "--sqlite-data-file", dir.resolve("vtorc.db").toString(),
        "--log-format", "text",
        "--bind-address", "127.0.0.1", "--port", Integer.toString(http)));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("vtorc.log").toFile());
    pb.environment().put("VTDATAROOT", dir.toString());
    Vtorc vtorc = new Vtorc(pb.start(), dir, "127.0.0.1:" + http);
    HttpClient client = HttpClient.newHttpClient();
    try {
      await("VTOrc's API answering on " + vtorc.httpAddress).atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(300)).ignoreExceptionsInstanceOf(IOException.class)
          .until(() -> {
            if (!vtorc.process.isAlive()) {
              throw new IllegalStateException("vtorc exited: " + vtorc.log());
            }
            return client.send(HttpRequest.newBuilder(URI.create("http://" + vtorc.httpAddress
                + "/api/detection-analysis")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
          });
    } catch (RuntimeException e) {
      vtorc.close();
      throw e;
    }
    return vtorc;
  }

  /** {@code host:port} of its HTTP API, as VTORC_ADDRESSES names it. */
  public String httpAddress() {
    return httpAddress;
  }

  public String log() {
    return ChildServers.log(dir.resolve("vtorc.log"));
  }

  @Override
  public void close() {
    ChildServers.stop(process, Duration.ofSeconds(40));
    ChildServers.deleteFolder(dir);
  }
}
