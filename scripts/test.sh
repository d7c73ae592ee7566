#!/usr/bin/env bash
# Runs every test of pointsman on real components: installs etcd, MariaDB, Chromium and its driver
# when missing; builds the Vitess 24 and Temporal dev-server binaries from Go modules once (cached
# by version under ~/.cache/pointsman, both builds at once; a cold build takes about 15 minutes);
# starts etcd and MariaDB on loopback with data in a temporary folder, runs `mvn -B -T 2 verify`, and
# stops them (by PID, also on failure or Ctrl-C). Extra arguments go to Maven, e.g. -pl engine -Dtest=...
# First it checks that docker/docker-compose.yml parses, with Debian's docker-compose, which reads
# and validates compose files without a Docker engine (installed with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
# Go builds Vitess, the Temporal CLI and fetches Vitess's .proto files; a bare shell may lack its folder
command -v go >/dev/null 2>&1 || [ ! -x /usr/local/go/bin/go ] || export PATH="$PATH:/usr/local/go/bin"
source scripts/services.sh
source scripts/vitess.sh
source scripts/temporal.sh

check_compose_file() {
  if ! command -v docker-compose >/dev/null 2>&1; then
    echo "installing docker-compose with apt-get (to check docker/docker-compose.yml)"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends docker-compose >/dev/null
  fi
  docker-compose -f docker/docker-compose.yml config -q
  echo "docker/docker-compose.yml parses"
}

# The Go builds run side by side (each mostly waits on one core) and are skipped when cached.
build_go_binaries() {
  local vitess_log temporal_log vitess_pid temporal_pid ok=0
  vitess_log=$(mktemp); temporal_log=$(mktemp)
  (ensure_vitess_binaries && echo "$POINTSMAN_VITESS_BIN" >"$vitess_log.out") >"$vitess_log" 2>&1 & vitess_pid=$!
  (ensure_temporal_binary && echo "$POINTSMAN_TEMPORAL_BIN" >"$temporal_log.out") >"$temporal_log" 2>&1 & temporal_pid=$!
  wait "$vitess_pid" || { echo "building Vitess failed:"; cat "$vitess_log"; ok=1; }
  wait "$temporal_pid" || { echo "building the Temporal CLI failed:"; cat "$temporal_log"; ok=1; }
  [ "$ok" -eq 0 ] || return 1
  POINTSMAN_VITESS_BIN=$(cat "$vitess_log.out"); POINTSMAN_TEMPORAL_BIN=$(cat "$temporal_log.out")
  export POINTSMAN_VITESS_BIN POINTSMAN_TEMPORAL_BIN
  rm -f "$vitess_log" "$vitess_log.out" "$temporal_log" "$temporal_log.out"
  echo "Vitess binaries in $POINTSMAN_VITESS_BIN; Temporal CLI $POINTSMAN_TEMPORAL_BIN"
}

check_compose_file
build_go_binaries
trap stop_services EXIT INT TERM
start_services
# Two modules at a time (-T 2): modules that do not depend on each other test side by side, e.g. the
# workflows and the engine, or the demo and the bench beside the end-to-end tests, whose time is mostly
# spent waiting on real processes. POINTSMAN_MAVEN_THREADS=1 builds one module after another.
mvn -B -T "${POINTSMAN_MAVEN_THREADS:-2}" verify "$@"
