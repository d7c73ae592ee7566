#!/usr/bin/env bash
# The soak of issue 7: SwitchTraffic and ReverseTraffic back and forth under constant router load,
# the topology validator checked after every action, no acknowledged write lost or duplicated.
#   ./scripts/soak.sh        50 cycles (as the build does, about 2 minutes)
#   ./scripts/soak.sh 200    any other count
# Runs through scripts/test.sh, so etcd and MariaDB are installed, started and stopped as for the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${1:-50}
if ! [[ "$cycles" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [CYCLES]   (a positive whole number, default 50; got '$cycles')" >&2
  exit 2
fi
exec ./scripts/test.sh -pl e2e -am -Dtest=SwitchSoakTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dpointsman.soakCycles="$cycles"
