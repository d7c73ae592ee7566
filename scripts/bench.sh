#!/usr/bin/env bash
# The benchmarks: builds pointsman, then runs the bench module on sandboxes of its own (etcd and
# MariaDB primaries on loopback, dev-mode Temporal) and writes BENCHMARKS.md. Installs etcd-server
# and mariadb-server with apt-get when they are missing, as scripts/test.sh does.
#   ./scripts/bench.sh                 the full run (about 45 minutes on 2 cores), BENCHMARKS.md
#   ./scripts/bench.sh --smoke --out /tmp/smoke.md   a few minutes of everything (CI runs this as a test)
#   ./scripts/bench.sh --help          every option
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh
ensure_packages
echo "Building pointsman (mvn -B -q install -DskipTests) ..."
mvn -B -q install -DskipTests
# the worker's step-by-step log would bury the bench's own lines; POINTSMAN_LOG_LEVEL=INFO brings it back
export POINTSMAN_LOG_LEVEL=${POINTSMAN_LOG_LEVEL:-WARN}
jar=$(ls bench/target/pointsman-bench-*.jar | grep -v -e '-sources' -e '-tests' | head -n 1)
exec java -jar "$jar" "$@"
