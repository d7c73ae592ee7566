#!/usr/bin/env bash
# Runs every test of pointsman on real components: installs etcd and MariaDB when missing,
# starts them on loopback with data in a temporary folder, runs `mvn -B verify`, and stops them
# (by PID, also on failure or Ctrl-C). Extra arguments go to Maven, e.g. -pl activities -Dtest=...
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh
trap stop_services EXIT INT TERM
start_services
mvn -B verify "$@"
