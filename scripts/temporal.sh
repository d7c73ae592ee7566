#!/usr/bin/env bash
# A real Temporal dev server (the Temporal CLI's `server start-dev`: frontend, history, matching,
# worker services, SQLite persistence and the Web UI in one process), built from Go modules.
#
# Source it for the functions, or run it:
#   ./scripts/temporal.sh build            build (once) and print the binary path
#   ./scripts/temporal.sh start DATA_DIR   start in the foreground-of-this-shell; prints the addresses
#
# Functions:
#   ensure_temporal_binary      builds tools/temporal (pinned CLI version) into
#                               ${POINTSMAN_CACHE:-$HOME/.cache/pointsman}/temporal-cli-<version>/temporal
#                               once; exports POINTSMAN_TEMPORAL_BIN. Also builds the server's own binary
#                               (go.temporal.io/server/cmd/server, pinned there too) beside it as
#                               temporal-server, which the mTLS tests run (start-dev has no TLS setting);
#                               exports POINTSMAN_TEMPORAL_SERVER_BIN
#   start_temporal_dev DATA_DIR starts the dev server on 127.0.0.1 with free ports, its SQLite file at
#                               DATA_DIR/temporal.db (kept across restarts), log at DATA_DIR/temporal.log.
#                               Exports POINTSMAN_TEMPORAL_ADDRESS (host:port of the gRPC frontend),
#                               POINTSMAN_TEMPORAL_UI (http://127.0.0.1:PORT), POINTSMAN_TEMPORAL_PID,
#                               POINTSMAN_TEMPORAL_METRICS (http://127.0.0.1:PORT/metrics).
#                               Extra arguments are passed on to `temporal server start-dev`
#                               (e.g. --search-attribute TargetKeyspace=Keyword).
#   stop_temporal_dev           SIGTERM to POINTSMAN_TEMPORAL_PID, waits for it to exit.
#
# Environment: POINTSMAN_TEMPORAL_BIN (use this binary, skip the build), POINTSMAN_CACHE,
#   POINTSMAN_TEMPORAL_START_TIMEOUT (seconds, default 120).

_TEMPORAL_SH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TEMPORAL_TOOLS_DIR=$(cd "$_TEMPORAL_SH_DIR/../tools/temporal" && pwd)

# The CLI version pinned in tools/temporal/go.mod.
temporal_cli_version() {
  awk '$1 == "github.com/temporalio/cli" { print $2; exit }' "$TEMPORAL_TOOLS_DIR/go.mod"
}

ensure_temporal_binary() {
  if [ -n "${POINTSMAN_TEMPORAL_BIN:-}" ] && [ -x "$POINTSMAN_TEMPORAL_BIN" ]; then
    export POINTSMAN_TEMPORAL_BIN
    _ensure_temporal_server "$(dirname "$POINTSMAN_TEMPORAL_BIN")"
    return
  fi
  local version dir bin
  version=$(temporal_cli_version)
  if [ -z "$version" ]; then
    echo "no github.com/temporalio/cli version in $TEMPORAL_TOOLS_DIR/go.mod" >&2
    return 1
  fi
  dir="${POINTSMAN_CACHE:-$HOME/.cache/pointsman}/temporal-cli-$version"
  bin="$dir/temporal"
  if [ ! -x "$bin" ]; then
    command -v go >/dev/null 2>&1 || { echo "go is needed to build the Temporal CLI" >&2; return 1; }
    mkdir -p "$dir"
    echo "building Temporal CLI $version into $bin (first time only: about 15 min on 2 cores)" >&2
    # -mod=readonly: go.mod and go.sum in tools/temporal are the pinned, checked build list.
    if ! (cd "$TEMPORAL_TOOLS_DIR" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly \
          go build -ldflags "-X github.com/temporalio/cli/temporalcli.Version=${version#v}" \
            -o "$bin.tmp" github.com/temporalio/cli/cmd/temporal); then
      rm -f "$bin.tmp"
      echo "building the Temporal CLI failed" >&2
      return 1
    fi
    mv "$bin.tmp" "$bin"
  fi
  POINTSMAN_TEMPORAL_BIN=$bin
  export POINTSMAN_TEMPORAL_BIN
  _ensure_temporal_server "$dir"
}

# Temporal's server binary in DIR (built once; a few minutes when the CLI's build is cached, as
# the CLI embeds the same server packages); exports POINTSMAN_TEMPORAL_SERVER_BIN.
_ensure_temporal_server() {
  local dir=$1 bin
  bin="$dir/temporal-server"
  if [ -n "${POINTSMAN_TEMPORAL_SERVER_BIN:-}" ] && [ -x "$POINTSMAN_TEMPORAL_SERVER_BIN" ]; then
    export POINTSMAN_TEMPORAL_SERVER_BIN
    return 0
  fi
  if [ ! -x "$bin" ]; then
    command -v go >/dev/null 2>&1 || { echo "go is needed to build the Temporal server" >&2; return 1; }
    echo "building the Temporal server into $bin (first time only)" >&2
    if ! (cd "$TEMPORAL_TOOLS_DIR" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly \
          go build -o "$bin.tmp" go.temporal.io/server/cmd/server); then
      rm -f "$bin.tmp"
      echo "building the Temporal server failed" >&2
      return 1
    fi
    mv "$bin.tmp" "$bin"
  fi
  POINTSMAN_TEMPORAL_SERVER_BIN=$bin
  export POINTSMAN_TEMPORAL_SERVER_BIN
}

source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

start_temporal_dev() {
  local data_dir=${1:?usage: start_temporal_dev DATA_DIR [extra start-dev flags]}
  shift
  ensure_temporal_binary || return 1
  mkdir -p "$data_dir"
  data_dir=$(cd "$data_dir" && pwd)

  local grpc_port ui_port http_port metrics_port
  grpc_port=$(loopback_free_port)
  ui_port=$(loopback_free_port "$grpc_port")
  http_port=$(loopback_free_port "$grpc_port" "$ui_port")
  metrics_port=$(loopback_free_port "$grpc_port" "$ui_port" "$http_port")

  # --ip binds the frontend, the internal services, the HTTP API and metrics to 127.0.0.1;
  # --ui-ip the Web UI. No --headless: in start-dev that flag turns the Web UI off (start-dev
  # never opens a browser). The "default" namespace is always created. --log-level warn keeps the
  # log file small. Eager activities: holdLocks starts in the answer to the workflow task that
  # schedules it, without a trip through matching (docs/real-temporal.md).
  "$POINTSMAN_TEMPORAL_BIN" server start-dev \
    --ip 127.0.0.1 --ui-ip 127.0.0.1 \
    --port "$grpc_port" --ui-port "$ui_port" --http-port "$http_port" --metrics-port "$metrics_port" \
    --db-filename "$data_dir/temporal.db" \
    --log-level warn \
    --dynamic-config-value system.enableActivityEagerExecution=true \
    "$@" \
    >>"$data_dir/temporal.log" 2>&1 &
  POINTSMAN_TEMPORAL_PID=$!
  export POINTSMAN_TEMPORAL_PID
  POINTSMAN_TEMPORAL_ADDRESS="127.0.0.1:$grpc_port"
  POINTSMAN_TEMPORAL_UI="http://127.0.0.1:$ui_port"
  POINTSMAN_TEMPORAL_METRICS="http://127.0.0.1:$metrics_port/metrics"
  export POINTSMAN_TEMPORAL_ADDRESS POINTSMAN_TEMPORAL_UI POINTSMAN_TEMPORAL_METRICS

  local deadline=$(( SECONDS + ${POINTSMAN_TEMPORAL_START_TIMEOUT:-120} ))
  until "$POINTSMAN_TEMPORAL_BIN" operator cluster health --address "$POINTSMAN_TEMPORAL_ADDRESS" \
          --command-timeout 2s >/dev/null 2>&1; do
    if ! kill -0 "$POINTSMAN_TEMPORAL_PID" 2>/dev/null; then
      echo "temporal dev server exited; last log lines:" >&2
      tail -n 20 "$data_dir/temporal.log" >&2
      return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      echo "temporal frontend at $POINTSMAN_TEMPORAL_ADDRESS did not answer; see $data_dir/temporal.log" >&2
      return 1
    fi
    sleep 0.5
  done
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "$POINTSMAN_TEMPORAL_UI/")" = 200 ]; do
    if [ $SECONDS -ge $deadline ]; then
      echo "temporal UI at $POINTSMAN_TEMPORAL_UI did not serve 200; see $data_dir/temporal.log" >&2
      return 1
    fi
    sleep 0.5
  done
}

stop_temporal_dev() {
  local pid=${POINTSMAN_TEMPORAL_PID:-}
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "temporal dev server $pid ignored SIGTERM for 30 s; sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null
    fi
  fi
  wait "$pid" 2>/dev/null || true
  unset POINTSMAN_TEMPORAL_PID
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case "${1:-}" in
    build)
      ensure_temporal_binary
      echo "$POINTSMAN_TEMPORAL_BIN"
      ;;
    start)
      start_temporal_dev "${2:?usage: $0 start DATA_DIR}" "${@:3}"
      echo "POINTSMAN_TEMPORAL_ADDRESS=$POINTSMAN_TEMPORAL_ADDRESS"
      echo "POINTSMAN_TEMPORAL_UI=$POINTSMAN_TEMPORAL_UI"
      echo "POINTSMAN_TEMPORAL_PID=$POINTSMAN_TEMPORAL_PID"
      trap stop_temporal_dev TERM INT
      wait "$POINTSMAN_TEMPORAL_PID"
      ;;
    *)
      echo "usage: $0 build | start DATA_DIR [start-dev flags]" >&2
      exit 2
      ;;
  esac
fi
