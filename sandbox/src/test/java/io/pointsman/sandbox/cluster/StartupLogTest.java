package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Servers append to their logs across starts: only what the latest start wrote says why it failed. */
class StartupLogTest {
  private static final String MARIADB_BIND = "2026-12-07 19:50:47 0 [ERROR] Can't start server: Bind on TCP/IP port."
      + " Got error: 98: Address already in use\n";
  private static final String ETCD_BIND = "2026-12-07 19:50:48.704401 C | etcdmain: listen tcp 127.0.0.1:55263:"
      + " bind: address already in use\n";

  @TempDir
  Path dir;

  @Test
  void aPortTakenAtAnEarlierStartDoesNotCountForThisOne() throws IOException {
    Path log = dir.resolve("mysqld.log");
    Files.writeString(log, MARIADB_BIND + "2026-12-07 19:50:47 0 [ERROR] Aborting\n");
    StartupLog mark = StartupLog.mark(log);
    append(log, "2026-12-07 19:51:02 0 [ERROR] InnoDB: Plugin initialization aborted with error Generic error\n");

    assertThat(mark.reportsPortTaken()).isFalse();
  }

  @Test
  void aPortTakenAtThisStartCountsInMariadbdsWordsAndEtcds() throws IOException {
    Path mysqld = dir.resolve("mysqld.log");
    Files.writeString(mysqld, "2026-12-07 19:40:00 0 [Note] mariadbd: ready for connections.\n");
    StartupLog mariadb = StartupLog.mark(mysqld);
    append(mysqld, MARIADB_BIND);

    Path etcdLog = dir.resolve("etcd.log");
    StartupLog etcd = StartupLog.mark(etcdLog); // the first start: no log yet
    append(etcdLog, ETCD_BIND);

    assertThat(mariadb.reportsPortTaken()).isTrue();
    assertThat(etcd.reportsPortTaken()).isTrue();
  }

  @Test
  void theLastLinesOfALongStartAreRead() throws IOException {
    Path log = dir.resolve("mysqld.log");
    StartupLog mark = StartupLog.mark(log);
    append(log, "2026-12-07 19:50:46 0 [Note] InnoDB: a line of start-up chatter\n".repeat(5000) + MARIADB_BIND);

    assertThat(Files.size(log)).isGreaterThan(256 * 1024);
    assertThat(mark.reportsPortTaken()).isTrue();
  }

  private static void append(Path log, String text) throws IOException {
    Files.writeString(log, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }
}
