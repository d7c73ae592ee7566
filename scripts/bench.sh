#!/usr/bin/env bash
# The benchmarks: builds pointsman, then runs the bench module on sandboxes of its own (etcd and
# MariaDB primaries on loopback, dev-mode Temporal) and writes BENCHMARKS.md. Installs etcd-server
# and mariadb-server with apt-get when they are missing, as scripts/test.sh does.
#   ./scripts/bench.sh                 the full run (20–25 minutes on 2 cores), BENCHMARKS.md
#   ./scripts/bench.sh --smoke --out /tmp/smoke.md   a few minutes of everything (CI runs this as a test)
#   ./scripts/bench.sh --vitess [--rates 100,500] [--cycles 10] [--tablet-write-barrier] --out /tmp/vitess.md
#                                      the anchor: vtctldclient and pointsman switching one MoveTables'
#                                      writes on a real Vitess 24 cluster this script starts and stops
#                                      POINTSMAN_VITESS_KEEP_LOGS=DIR keeps the cluster's logs (vtgate's
#                                      buffering, the tablets') in DIR; the cluster's folder is removed
#   ./scripts/bench.sh --help          every option
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh
build_pointsman
# the worker's step-by-step log would bury the bench's own lines; POINTSMAN_LOG_LEVEL=INFO brings it back
export POINTSMAN_LOG_LEVEL=${POINTSMAN_LOG_LEVEL:-WARN}
jar=$(packaged_jar bench)
case " $* " in
  *" --vitess "*)
    source scripts/vitess-cluster.sh
    ensure_vitess_binaries >/dev/null
    keep_logs() {
      [ -n "${POINTSMAN_VITESS_KEEP_LOGS:-}" ] && [ -n "${VITESS_CLUSTER_DIR:-}" ] || return 0
      mkdir -p "$POINTSMAN_VITESS_KEEP_LOGS" && cp "$VITESS_CLUSTER_DIR"/*.log "$POINTSMAN_VITESS_KEEP_LOGS"/ \
        && echo "bench: the cluster's logs are in $POINTSMAN_VITESS_KEEP_LOGS"
    }
    trap 'keep_logs; stop_vitess_cluster' EXIT
    trap 'keep_logs; stop_vitess_cluster; exit 1' INT TERM
    start_vitess_cluster
    vitess_movetables_setup "$VITESS_CLUSTER_DIR/bench"
    export POINTSMAN_VITESS_DB_PASSWORD   # the second wall (--tablet-write-barrier) connects to MariaDB as vt_dba
    set +e
    java -jar "$jar" "$@"
    exit $?
    ;;
esac
exec java -jar "$jar" "$@"
