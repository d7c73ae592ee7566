#!/usr/bin/env bash
# Starts etcd and MariaDB on loopback for the tests, with their data in a temporary folder.
# Source it: it defines start_services / stop_services and exports the addresses the tests read.
#   POINTSMAN_TEST_ETCD            http://127.0.0.1:<port>
#   POINTSMAN_TEST_MYSQL_HOST/PORT/USER/PASSWORD
#   POINTSMAN_ETCD_BIN, POINTSMAN_MARIADBD_BIN, POINTSMAN_MARIADB_INSTALL_DB_BIN
#                                  for tests that must start (and kill) servers of their own
#   POINTSMAN_LIBFAKETIME          libfaketime.so.1, preloaded into workers whose clock a test moves
# The MySQL password below guards a throw-away server that listens on loopback only for one test run.

ensure_packages() {
  local missing=()
  command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
  command -v mariadbd >/dev/null 2>&1 || missing+=(mariadb-server)
  # the build itself: a JDK (17 or newer) and Maven, where the machine has neither
  command -v java >/dev/null 2>&1 || missing+=(default-jdk-headless)
  command -v mvn >/dev/null 2>&1 || missing+=(maven)
  # etcdctl sets up etcd's auth in EtcdSecurityTest; openssl makes its test certificates
  command -v etcdctl >/dev/null 2>&1 || missing+=(etcd-client)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  # libfaketime: the clock-skew tests give a worker process a wall clock of its own
  command -v faketime >/dev/null 2>&1 || missing+=(faketime)
  # the Temporal Web UI tests drive Debian's Chromium through its driver (no browser download)
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
  # Vitess 24's servers refuse to run as root; as root the tests start them in a user namespace
  command -v unshare >/dev/null 2>&1 || missing+=(util-linux)
  # the real-Vitess cluster script: the MariaDB client on vtgate and the tablets, python3 for free
  # ports and for reading vtctldclient's JSON (a minimal image may lack either)
  command -v mariadb >/dev/null 2>&1 || missing+=(mariadb-client)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  # health checks of etcd and the Temporal UI poll their HTTP endpoints
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} with apt-get"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # Debian starts no service in a container without systemd; if one was started, we don't use it.
  fi
}

# For the scripts that run a module's jar (demo, bench): the packages, then pointsman built and installed.
build_pointsman() {
  ensure_packages
  echo "Building pointsman (mvn -B -q install -DskipTests) ..."
  mvn -B -q install -DskipTests
}

# The packaged jar of module $1 (not its -sources or -tests jar); build_pointsman first.
packaged_jar() {
  ls "$1"/target/pointsman-"$1"-*.jar | grep -v -e '-sources' -e '-tests' | head -n 1
}

source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

wait_for() {
  local what=$1 tries=$2; shift 2
  for _ in $(seq "$tries"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  echo "$what did not come up" >&2
  return 1
}

start_services() {
  ensure_packages
  SERVICES_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pointsman-test.XXXXXX")
  export SERVICES_DIR
  local etcd_port etcd_peer mysql_port
  etcd_port=$(loopback_free_port); etcd_peer=$(loopback_free_port "$etcd_port")
  mysql_port=$(loopback_free_port "$etcd_port" "$etcd_peer")

  etcd --name pointsman-test --data-dir "$SERVICES_DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "pointsman-test=http://127.0.0.1:$etcd_peer" \
    >"$SERVICES_DIR/etcd.log" 2>&1 &
  ETCD_PID=$!
  export ETCD_PID

  local mysql_user=root
  [ "$(id -u)" -eq 0 ] || mysql_user=$(id -un)
  mariadb-install-db --no-defaults --datadir="$SERVICES_DIR/mysql" --user="$mysql_user" \
    --auth-root-authentication-method=normal --skip-test-db >"$SERVICES_DIR/mysql-install.log" 2>&1
  mariadbd --no-defaults --datadir="$SERVICES_DIR/mysql" --user="$mysql_user" \
    --bind-address=127.0.0.1 --port="$mysql_port" --socket="$SERVICES_DIR/mysql.sock" \
    --pid-file="$SERVICES_DIR/mysql.pid" --log-bin=mysql-bin --server-id=1 --binlog-format=ROW \
    --log-slave-updates --gtid-strict-mode=1 --skip-name-resolve \
    >"$SERVICES_DIR/mysql.log" 2>&1 &
  MARIADB_PID=$!
  export MARIADB_PID

  wait_for etcd 60 curl -fsS "http://127.0.0.1:$etcd_port/health" || { tail -20 "$SERVICES_DIR/etcd.log"; return 1; }
  wait_for MariaDB 120 mariadb --no-defaults --socket="$SERVICES_DIR/mysql.sock" -uroot -e 'SELECT 1' \
    || { tail -20 "$SERVICES_DIR/mysql.log"; return 1; }
  mariadb --no-defaults --socket="$SERVICES_DIR/mysql.sock" -uroot <<'SQL'
CREATE USER IF NOT EXISTS 'pointsman'@'%' IDENTIFIED BY 'pointsman-test';
GRANT ALL PRIVILEGES ON *.* TO 'pointsman'@'%' WITH GRANT OPTION;
FLUSH PRIVILEGES;
SQL

  export POINTSMAN_TEST_ETCD="http://127.0.0.1:$etcd_port"
  export POINTSMAN_TEST_MYSQL_HOST=127.0.0.1
  export POINTSMAN_TEST_MYSQL_PORT=$mysql_port
  export POINTSMAN_TEST_MYSQL_USER=pointsman
  export POINTSMAN_TEST_MYSQL_PASSWORD=pointsman-test
  export POINTSMAN_ETCD_BIN=$(command -v etcd)
  export POINTSMAN_MARIADBD_BIN=$(command -v mariadbd)
  export POINTSMAN_MARIADB_INSTALL_DB_BIN=$(command -v mariadb-install-db)
  POINTSMAN_LIBFAKETIME=$(dpkg -L libfaketime 2>/dev/null | grep '/libfaketime\.so\.1$' | head -n 1 || true)
  export POINTSMAN_LIBFAKETIME
  echo "etcd on $POINTSMAN_TEST_ETCD (pid $ETCD_PID), MariaDB on 127.0.0.1:$mysql_port (pid $MARIADB_PID), data in $SERVICES_DIR"
}

stop_pid() {
  local pid=$1
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
  kill -9 "$pid" 2>/dev/null || true
}

stop_services() {
  stop_pid "${MARIADB_PID:-}"
  stop_pid "${ETCD_PID:-}"
  [ -n "${SERVICES_DIR:-}" ] && rm -rf "$SERVICES_DIR"
  return 0
}
