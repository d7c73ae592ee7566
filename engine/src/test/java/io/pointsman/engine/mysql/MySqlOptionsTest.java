package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MySqlOptionsTest {

  @Test
  void neverPrintsThePassword() {
    MySqlOptions o = MySqlOptions.builder().user("vt_dba").password("s3cr3t-value").build();

    assertThat(o.toString()).doesNotContain("s3cr3t-value").contains("vt_dba", "****");
    assertThat(o.resolvePassword()).isEqualTo("s3cr3t-value");
  }

  @Test
  void readsThePasswordFileEachTimeWithoutItsTrailingNewline(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("pw");
    Files.writeString(file, "first\n");
    MySqlOptions o = MySqlOptions.builder().user("u").passwordFile(file).build();

    assertThat(o.resolvePassword()).isEqualTo("first");
    Files.writeString(file, "rotated\n");
    assertThat(o.resolvePassword()).isEqualTo("rotated");
    assertThat(o.toString()).doesNotContain("rotated");
  }

  @Test
  void validatesItsSettings() {
    assertThatThrownBy(() -> MySqlOptions.builder().build()).isInstanceOf(PointsmanException.class)
        .hasMessageContaining("user");
    assertThatThrownBy(() -> MySqlOptions.builder().user("u").password("p").passwordFile(Path.of("/x")).build())
        .hasMessageContaining("not both");
    assertThatThrownBy(() -> MySqlOptions.builder().user("u").poolSize(0).build()).hasMessageContaining("pool size");
    assertThatThrownBy(() -> MySqlOptions.builder().user("u").tlsCaFile(Path.of("/ca.pem")).build())
        .hasMessageContaining("VERIFY_CA");
  }
}
