#!/usr/bin/env bash
# Runs every test of pointsman on real components: installs etcd and MariaDB when missing,
# starts them on loopback with data in a temporary folder, runs `mvn -B verify`, and stops them
# (by PID, also on failure or Ctrl-C). Extra arguments go to Maven, e.g. -pl engine -Dtest=...
# First it checks that docker/docker-compose.yml parses, with Debian's docker-compose, which reads
# and validates compose files without a Docker engine (installed with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh

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

check_compose_file
trap stop_services EXIT INT TERM
start_services
mvn -B verify "$@"
