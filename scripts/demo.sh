#!/usr/bin/env bash
# The demo: builds pointsman, then runs the sandbox (etcd and three MariaDB primaries on loopback),
# Temporal in dev mode with a pointsman worker, and the MoveTables workflow commerce2customer under
# constant write load, switched with the pointsman CLI: SwitchTraffic (reads, then writes),
# ReverseTraffic, SwitchTraffic, Complete. It ends with a summary and stops everything it started.
# Installs etcd-server and mariadb-server with apt-get when they are missing, as scripts/test.sh does.
#   ./scripts/demo.sh                  the demo
#   ./scripts/demo.sh --rate 100       heavier load (inserts per second)
#   ./scripts/demo.sh --playground     sandbox and dev mode only, left running for the CLI until Ctrl-C
#   ./scripts/demo.sh --vitess         the same switches on a real Vitess 24 cluster (scripts/vitess-demo.sh;
#                                      builds the Vitess binaries once, about 15 minutes on a cold machine)
#   ./scripts/demo.sh --sandbox        the sandbox demo (the default)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh
build_pointsman
if [ "${1:-}" = --vitess ]; then
  shift
  source scripts/vitess.sh
  ensure_vitess_binaries >/dev/null
  exec scripts/vitess-demo.sh "$@"
fi
[ "${1:-}" = --sandbox ] && shift
jar=$(packaged_jar demo)
exec java -jar "$jar" "$@"
