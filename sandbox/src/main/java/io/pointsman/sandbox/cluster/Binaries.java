package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the server programs the sandbox starts: an environment variable naming the file wins (the
 * ones scripts/services.sh exports), then the PATH, then the sbin folders Debian installs servers
 * into but leaves off a normal user's PATH.
 */
final class Binaries {
  static final String ETCD_ENV = "POINTSMAN_ETCD_BIN";
  static final String MARIADBD_ENV = "POINTSMAN_MARIADBD_BIN";
  static final String INSTALL_DB_ENV = "POINTSMAN_MARIADB_INSTALL_DB_BIN";

  private static final List<String> EXTRA_DIRS = List.of("/usr/sbin", "/usr/local/sbin", "/sbin");

  private Binaries() {}

  static String etcd() {
    return find("etcd", ETCD_ENV, "etcd-server");
  }

  static String mariadbd() {
    return find("mariadbd", MARIADBD_ENV, "mariadb-server");
  }

  static String mariadbInstallDb() {
    return find("mariadb-install-db", INSTALL_DB_ENV, "mariadb-server");
  }

  private static String find(String name, String env, String debianPackage) {
    String configured = System.getenv(env);
    if (configured != null && !configured.isBlank()) {
      return configured;
    }
    List<String> dirs = new ArrayList<>();
    Optional.ofNullable(System.getenv("PATH")).ifPresent(p -> dirs.addAll(List.of(p.split(File.pathSeparator))));
    dirs.addAll(EXTRA_DIRS);
    for (String dir : dirs) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    throw PointsmanException.failedPrecondition(name + " was not found on the PATH nor in " + EXTRA_DIRS
        + ": install it (Debian/Ubuntu: apt-get install " + debianPackage + ") or set " + env);
  }
}
