package io.pointsman.sandbox.cli;

import io.pointsman.sandbox.cluster.MysqlCredentials;
import picocli.CommandLine.Option;

/** The MySQL account of the sandbox. */
final class CredentialOptions {
  @Option(names = "--mysql-user", paramLabel = "USER",
      description = "MySQL account created on every primary (default: ${DEFAULT-VALUE}).")
  String user = MysqlCredentials.DEFAULT_USER;

  @Option(names = "--mysql-password", paramLabel = "PASSWORD", arity = "0..1", interactive = true,
      description = "Its password (prompted for when given without a value; default: $"
          + MysqlCredentials.PASSWORD_ENV + ", else the sandbox default).")
  char[] password;

  MysqlCredentials credentials() {
    MysqlCredentials defaults = MysqlCredentials.defaults();
    return new MysqlCredentials(user, password == null ? defaults.password() : new String(password));
  }
}
