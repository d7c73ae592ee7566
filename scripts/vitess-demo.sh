#!/usr/bin/env bash
# The demo on a real Vitess 24 cluster (./scripts/demo.sh --vitess): vitess-cluster.sh starts etcd,
# vtctld, vtgate and one vttablet on MariaDB per shard; vtctldclient creates the MoveTables
# commerce2customer and real VReplication copies it; a pointsman worker in dev mode (Temporal dev
# server when built, else the SDK's) drives the tablets through their tablet-manager RPCs
# (POINTSMAN_PRIMARY_BACKEND=tablet); the pointsman CLI switches reads, writes, back, again and
# completes, under a write load through vtgate, and vtctldclient reports the state after each action.
# Expects the jars built (demo.sh builds them); stops everything it started, also on failure.
#   ./scripts/vitess-demo.sh [--rate N]     N inserts per second through vtgate (default 20)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/vitess-cluster.sh

rate=20
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) rate=$2; shift 2 ;;
    *) echo "usage: $0 [--rate N]" >&2; exit 2 ;;
  esac
done

_vd_worker_pid=""
_vd_load_pid=""
_vd_stop() {
  [ -n "$_vd_load_pid" ] && kill "$_vd_load_pid" 2>/dev/null
  if [ -n "$_vd_worker_pid" ] && kill -0 "$_vd_worker_pid" 2>/dev/null; then
    kill -TERM "$_vd_worker_pid" 2>/dev/null
    for _ in $(seq 60); do kill -0 "$_vd_worker_pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$_vd_worker_pid" 2>/dev/null
  fi
  stop_vitess_cluster
}

# Inserts through vtgate at $rate per second, each on its own, counting acknowledged and failed writes
# (never retried) in files, until killed.
_vd_load() {
  local dir=$1 id=100000 pause
  pause=$(python3 -c "print(1.0 / $rate)")
  while true; do
    if vitess_cluster_mysql -e "insert into customer(customer_id, email) values ($id, 'load-$id@example.com')" \
        2>>"$dir/load-errors.txt"; then
      echo "$id" >>"$dir/acked.txt"
    else
      echo "$id" >>"$dir/failed.txt"
    fi
    id=$((id + 1))
    sleep "$pause"
  done
}

_vd_cli() {
  java -jar "$cli" --temporal-address "127.0.0.1:$temporal_port" "$@"
}

_vd_status() {
  vtctldclient_cmd MoveTables --workflow commerce2customer --target-keyspace customer status --format json \
    | python3 -c 'import json,sys; print(json.load(sys.stdin).get("traffic_state", "(no workflow)"))'
}

pointsman_vitess_demo() {
  local t0=$SECONDS d worker cli temporal_port i
  worker=$(ls worker/target/pointsman-worker-*.jar | grep -v -e '-sources' -e '-tests' | head -n 1)
  cli=$(ls cli/target/pointsman-cli-*.jar | grep -v -e '-sources' -e '-tests' | head -n 1)
  [ -f "$worker" ] && [ -f "$cli" ] || { _vc_log "build pointsman first (mvn -B -q install -DskipTests)"; return 1; }
  ensure_vitess_binaries >/dev/null || return 1
  start_vitess_cluster || return 1
  d="$VITESS_CLUSTER_DIR/pointsman-demo"
  mkdir -p "$d"
  vitess_movetables_setup "$d" || return 1

  temporal_port=$(_vc_free_port)
  echo "== pointsman worker (dev mode) on the cluster's etcd, tablets through their gRPC port"
  ETCD_ENDPOINTS="$POINTSMAN_VITESS_ETCD" MYSQL_USER=vt_dba MYSQL_PASSWORD="$POINTSMAN_VITESS_DB_PASSWORD" \
    POINTSMAN_PRIMARY_BACKEND=tablet DEV_TEMPORAL_PORT="$temporal_port" DEV_DATA_DIR="$d/temporal" METRICS_PORT=0 \
    POINTSMAN_LOG_LEVEL="${POINTSMAN_LOG_LEVEL:-WARN}" java -jar "$worker" dev >"$d/worker.log" 2>&1 &
  _vd_worker_pid=$!
  for i in $(seq 240); do
    _vd_cli Validate --workflow commerce2customer --target-keyspace customer >/dev/null 2>&1 && break
    kill -0 "$_vd_worker_pid" 2>/dev/null || { _vc_log "the worker ended:"; tail -n 30 "$d/worker.log" >&2; return 1; }
    sleep 0.5
  done
  grep -h "Temporal UI" "$d/worker.log" || true

  echo "== write load through vtgate: $rate inserts/s into customer"
  _vd_load "$d" &
  _vd_load_pid=$!
  local step
  for step in "SwitchTraffic --tablet-types REPLICA,RDONLY" "SwitchTraffic --tablet-types PRIMARY" \
      "ReverseTraffic" "SwitchTraffic"; do
    echo "== pointsman MoveTables $step"
    # shellcheck disable=SC2086
    _vd_cli MoveTables --workflow commerce2customer --target-keyspace customer $step || return 1
    echo "   vtctldclient status: $(_vd_status)"
  done
  echo "== pointsman MoveTables Complete"
  _vd_cli MoveTables --workflow commerce2customer --target-keyspace customer Complete || return 1
  echo "   vtctldclient Workflow list (customer): $(vtctldclient_cmd Workflow --keyspace customer list | tr '\n' ' ')"
  kill "$_vd_load_pid" 2>/dev/null; wait "$_vd_load_pid" 2>/dev/null; _vd_load_pid=""

  local acked failed found
  acked=$(cat "$d/acked.txt" 2>/dev/null | wc -l)
  failed=$(cat "$d/failed.txt" 2>/dev/null | wc -l)
  found=$(vitess_cluster_mysql -N -e "select count(*) from customer where customer_id >= 100000")
  echo "== summary"
  echo "   writes acknowledged: $acked, failed: $failed, rows found through vtgate: $found"
  [ "$failed" = 0 ] || { echo "   failed writes:"; tail -n 5 "$d/load-errors.txt"; }
  echo "   took $((SECONDS - t0)) s"
  # the last insert may have been acknowledged by vtgate after the kill ended the client: at most one more row
  [ "$found" -ge "$acked" ] && [ "$found" -le $((acked + 1)) ] || { _vc_log "acknowledged writes missing"; return 1; }
}

trap '_vd_stop; exit 1' INT TERM
rc=0
pointsman_vitess_demo || rc=1
_vd_stop
[ $rc = 0 ] && echo "pointsman on Vitess: demo passed" || echo "pointsman on Vitess: demo FAILED" >&2
exit $rc
