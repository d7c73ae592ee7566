package io.pointsman.engine.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority made with the openssl command, for tests that run servers
 * requiring TLS. Each authority is its own: a certificate of one is not trusted by another, which
 * is how tests present "a certificate from another CA". Keys are unencrypted PKCS#8 PEM, which
 * etcd, MariaDB and Netty all read.
 */
public final class TestCertificates {
  private final Path dir;
  private final String name;

  private TestCertificates(Path dir, String name) {
    this.dir = dir;
    this.name = name;
  }

  /** A new self-signed CA named {@code name}, its files in {@code dir}. */
  public static TestCertificates newAuthority(Path dir, String name) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    TestCertificates ca = new TestCertificates(dir, name);
    openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-subj", "/CN=" + name, "-keyout", ca.caKey().toString(), "-out", ca.caCert().toString(),
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    return ca;
  }

  public Path caCert() {
    return dir.resolve(name + "-ca.pem");
  }

  private Path caKey() {
    return dir.resolve(name + "-ca.key");
  }

  /**
   * A certificate for a server (and for clients too: both extended key usages) signed by this CA.
   *
   * @param sans subjectAltName entries such as {@code IP:127.0.0.1} or {@code DNS:localhost}; none
   *     makes a certificate no host name matches
   */
  public Issued issue(String commonName, String... sans) throws IOException, InterruptedException {
    Path key = dir.resolve(name + "-" + commonName + ".key");
    Path csr = dir.resolve(name + "-" + commonName + ".csr");
    Path cert = dir.resolve(name + "-" + commonName + ".pem");
    Path ext = dir.resolve(name + "-" + commonName + ".ext");
    StringBuilder extensions = new StringBuilder()
        .append("basicConstraints=CA:FALSE\n")
        .append("keyUsage=critical,digitalSignature,keyEncipherment\n")
        .append("extendedKeyUsage=serverAuth,clientAuth\n");
    if (sans.length > 0) {
      extensions.append("subjectAltName=").append(String.join(",", sans)).append('\n');
    }
    Files.writeString(ext, extensions);
    openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + commonName,
        "-keyout", key.toString(), "-out", csr.toString());
    openssl(dir, "x509", "-req", "-in", csr.toString(), "-CA", caCert().toString(), "-CAkey", caKey().toString(),
        "-CAcreateserial", "-days", "2", "-extfile", ext.toString(), "-out", cert.toString());
    return new Issued(cert, key);
  }

  /** A certificate and its private key. */
  public record Issued(Path cert, Path key) {}

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add("openssl");
    command.addAll(List.of(args));
    Path log = Files.createTempFile(dir, "openssl", ".log");
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("openssl did not finish within 60 s: " + command);
    }
    if (p.exitValue() != 0) {
      throw new IOException("openssl failed (" + p.exitValue() + "): " + command + "\n" + Files.readString(log));
    }
  }
}
