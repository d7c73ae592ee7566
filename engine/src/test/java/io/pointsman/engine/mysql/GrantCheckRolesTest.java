package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.testing.TestServices;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Grants an account holds through a role count, as MariaDB applies them: information_schema lists
 * the user's own grants only, so GrantCheck reads the grants of the roles enabled at login (the
 * default role; pointsman never runs SET ROLE). A role granted but not enabled gives nothing, and
 * the check says so.
 */
class GrantCheckRolesTest {
  private final String suffix = UUID.randomUUID().toString().substring(0, 8);
  private final String user = "roles_" + suffix;
  private final String role = "pm_role_" + suffix;
  private final String db = "vt_roles_" + suffix;
  private final PrimaryEndpoint endpoint = MySqlTestSupport.endpoint(db, "_vt_roles_" + suffix);

  @BeforeEach
  void accountWithARole() throws Exception {
    MySqlTestSupport.exec("CREATE ROLE " + role);
    MySqlTestSupport.exec("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'pw-" + suffix + "'");
    MySqlTestSupport.exec("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON `" + endpoint.sidecarDb() + "`.* TO '"
        + user + "'@'%'");
    MySqlTestSupport.exec("GRANT SELECT, TRIGGER, LOCK TABLES, DROP, ALTER, CREATE, INSERT ON `" + db + "`.* TO "
        + role);
    MySqlTestSupport.exec("GRANT PROCESS, SUPER ON *.* TO " + role);
    MySqlTestSupport.exec("GRANT " + role + " TO '" + user + "'@'%'");
  }

  @AfterEach
  void drop() throws Exception {
    MySqlTestSupport.exec("DROP USER IF EXISTS '" + user + "'@'%'");
    MySqlTestSupport.exec("DROP ROLE IF EXISTS " + role);
  }

  @Test
  void grantsOfTheDefaultRoleAreHeld() throws Exception {
    MySqlTestSupport.exec("SET DEFAULT ROLE " + role + " FOR '" + user + "'@'%'");

    GrantCheck.Result r = check();

    assertThat(r.missing()).as("missing with the role's grants counted").isEmpty();
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("through role " + role));
  }

  @Test
  void aRoleThatIsNotEnabledAtLoginGivesNothingAndIsNamed() throws Exception {
    GrantCheck.Result r = check();

    assertThat(r.missing()).extracting(GrantCheck.Need::privilege).contains("TRIGGER", "PROCESS", "LOCK TABLES");
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains(role, "not enabled at login",
        "SET DEFAULT ROLE"));
  }

  @Test
  void allPrivilegesOfARoleCoverEveryNeed() throws Exception {
    MySqlTestSupport.exec("REVOKE ALL PRIVILEGES, GRANT OPTION FROM " + role);
    MySqlTestSupport.exec("GRANT ALL PRIVILEGES ON `" + db + "`.* TO " + role);
    MySqlTestSupport.exec("GRANT PROCESS, SUPER ON *.* TO " + role);
    MySqlTestSupport.exec("SET DEFAULT ROLE " + role + " FOR '" + user + "'@'%'");

    assertThat(check().missing()).isEmpty();
  }

  private GrantCheck.Result check() throws Exception {
    String url = "jdbc:mysql://" + TestServices.mysqlHost() + ":" + TestServices.mysqlPort() + "/";
    try (Connection c = DriverManager.getConnection(url, user, "pw-" + suffix)) {
      return GrantCheck.check(c, endpoint);
    }
  }
}
