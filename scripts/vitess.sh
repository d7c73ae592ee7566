#!/usr/bin/env bash
# Real Vitess for tests and demos: builds the Vitess binaries from the Go module pinned in
# tools/vitess/go.mod and starts vtctld on loopback over an etcd topology.
#
# Source it (like scripts/services.sh) to get the functions, or run it:
#   ./scripts/vitess.sh build      build (or reuse) the binaries and print their directory
#
# Functions:
#   ensure_vitess_binaries   builds vtctld vtctldclient vtgate vttablet mysqlctl vtorc once per version
#                            into ${POINTSMAN_CACHE:-$HOME/.cache/pointsman}/vitess-<version>/bin
#                            and exports POINTSMAN_VITESS_BIN (that directory)
#   start_vtctld [etcd]      starts vtctld on free loopback ports over the etcd2 topo at [etcd]
#                            (default $POINTSMAN_TEST_ETCD), global root /vitess/global. vtctld has no cell flag;
#                            the cell (zone1, root /vitess/zone1) is a CellInfo record: see ensure_vitess_cell.
#                            Exports POINTSMAN_VTCTLD_GRPC (host:port), POINTSMAN_VTCTLD_HTTP (host:port),
#                            VTCTLD_PID, VTCTLD_DIR (log and data, a temporary folder)
#   stop_vtctld              SIGTERM to vtctld, then removes VTCTLD_DIR
#   ensure_vitess_cell [etcd] registers the cell (AddCellInfo) if it is missing; needs vtctld running
#   vitess_grpc_tls_flags KIND  the gRPC TLS flags of POINTSMAN_VITESS_GRPC_TLS_DIR (nothing when it is unset),
#                            one word per line; KIND is tablet-server (vttablet's --grpc-cert/--grpc-key/--grpc-ca,
#                            client certificates required), tablet-manager-client (--tablet-manager-grpc-*: vtctld
#                            and vttablets calling tablet-manager RPCs) or tablet-client (--tablet-grpc-*: the
#                            query service, which vtgate, vtctld and VReplication's source reads use)
#
# A whole cluster (etcd, vtctld, MariaDB-backed vttablets, vtgate): scripts/vitess-cluster.sh.
#
# Needs the Go toolchain named by the `go` line of tools/vitess/go.mod, or newer. No toolchain is
# downloaded (GOTOOLCHAIN=local); modules come from the Go module proxy.

POINTSMAN_VITESS_VERSION=v0.24.4
: "${POINTSMAN_VITESS_CELL:=zone1}"
: "${POINTSMAN_VITESS_GLOBAL_ROOT:=/vitess/global}"
: "${POINTSMAN_VITESS_CELL_ROOT:=/vitess/$POINTSMAN_VITESS_CELL}"
POINTSMAN_VITESS_BINARIES=(vtctld vtctldclient vtgate vttablet mysqlctl vtorc)

_vitess_repo_root() {
  (cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
}

vitess_bin_dir() {
  echo "${POINTSMAN_CACHE:-$HOME/.cache/pointsman}/vitess-$POINTSMAN_VITESS_VERSION/bin"
}

_vitess_have_binaries() {
  local dir=$1 b
  for b in "${POINTSMAN_VITESS_BINARIES[@]}"; do
    [ -x "$dir/$b" ] || return 1
  done
}

# Fails with a clear message when the local Go is older than the go line of tools/vitess/go.mod.
_vitess_check_go() {
  local gomod=$1 want have
  command -v go >/dev/null 2>&1 || { echo "vitess: no 'go' on PATH; Go $(awk '$1=="go"{print $2}' "$gomod") or newer is needed" >&2; return 1; }
  want=$(awk '$1=="go"{print $2; exit}' "$gomod")
  have=$(GOTOOLCHAIN=local go env GOVERSION); have=${have#go}
  if [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n 1)" != "$want" ]; then
    echo "vitess: Go $have is older than go $want required by vitess.io/vitess@$POINTSMAN_VITESS_VERSION (GOTOOLCHAIN=local, no toolchain download)" >&2
    return 1
  fi
}

ensure_vitess_binaries() {
  local bin root
  bin=$(vitess_bin_dir)
  if _vitess_have_binaries "$bin"; then
    export POINTSMAN_VITESS_BIN=$bin
    return 0
  fi
  root=$(_vitess_repo_root)
  _vitess_check_go "$root/tools/vitess/go.mod" || return 1
  mkdir -p "$(dirname "$bin")"
  (
    # one build at a time per cache directory; a second caller waits and then finds the binaries
    if command -v flock >/dev/null 2>&1; then
      exec 9>"$(dirname "$bin")/.build.lock"
      flock 9
    fi
    _vitess_have_binaries "$bin" && exit 0
    local tmp start
    tmp=$(mktemp -d "$(dirname "$bin")/bin.XXXXXX")
    start=$(date +%s)
    echo "vitess: building ${POINTSMAN_VITESS_BINARIES[*]} of vitess.io/vitess@$POINTSMAN_VITESS_VERSION into $bin" \
      "(a cold build takes about 15 minutes on 2 cores)" >&2
    # `tool` is the set of tool directives in tools/vitess/go.mod; -mod=readonly keeps go.mod/go.sum as committed
    if ! (cd "$root/tools/vitess" && GOTOOLCHAIN=local GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0 \
            go build -trimpath -o "$tmp/" tool); then
      rm -rf "$tmp"
      echo "vitess: build failed" >&2
      exit 1
    fi
    _vitess_have_binaries "$tmp" || { echo "vitess: build did not produce all of ${POINTSMAN_VITESS_BINARIES[*]}" >&2; rm -rf "$tmp"; exit 1; }
    rm -rf "$bin"
    mv "$tmp" "$bin"
    echo "vitess: built in $(( $(date +%s) - start ))s" >&2
  ) || return 1
  export POINTSMAN_VITESS_BIN=$bin
}

source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"
_vitess_free_port() { loopback_free_port "$@"; }

# The etcd address as Vitess's etcd2 topo takes it: comma-separated endpoints, scheme optional.
_vitess_topo_address() {
  local etcd=$1
  echo "${etcd:-${POINTSMAN_TEST_ETCD:-}}"
}

# POINTSMAN_VITESS_GRPC_TLS_DIR holds ca.pem (the CA that signed every certificate below and that the
# tablets trust for client certificates), server.pem + server-key.pem (the vttablets' certificate; its
# SANs must name the tablets' host, 127.0.0.1 here) and client.pem + client-key.pem (what vtctld, vtgate
# and the vttablets present when they call a tablet). Vitess 24 spells the flags with dashes;
# POINTSMAN_VITESS_GRPC_TLS_SERVER_NAME, when set, is the name the clients verify instead of the host.
vitess_grpc_tls_flags() {
  local dir=${POINTSMAN_VITESS_GRPC_TLS_DIR:-} kind=$1 prefix
  [ -n "$dir" ] || return 0
  case "$kind" in
    tablet-server)
      printf '%s\n' --grpc-cert "$dir/server.pem" --grpc-key "$dir/server-key.pem" --grpc-ca "$dir/ca.pem"
      return 0 ;;
    tablet-manager-client) prefix=--tablet-manager-grpc ;;
    tablet-client) prefix=--tablet-grpc ;;
    *) echo "vitess_grpc_tls_flags: unknown kind '$kind'" >&2; return 1 ;;
  esac
  printf '%s\n' "$prefix-ca" "$dir/ca.pem" "$prefix-cert" "$dir/client.pem" "$prefix-key" "$dir/client-key.pem"
  if [ -n "${POINTSMAN_VITESS_GRPC_TLS_SERVER_NAME:-}" ]; then
    printf '%s\n' "$prefix-server-name" "$POINTSMAN_VITESS_GRPC_TLS_SERVER_NAME"
  fi
}

# Vitess servers refuse to run as root ("servenv.Init: running this as root makes no sense"). As root we
# start them in a new user namespace where they see themselves as nobody (uid 65534); the files they
# touch still belong to root and the network is the host's, so loopback ports and temp folders work.
# Prints the command prefix (one word per line) that does this: `unshare --user --` as root, nothing otherwise.
# unshare execs the server, so the PID of a backgrounded "${prefix[@]}" server is the server's PID.
vitess_non_root_prefix() {
  if [ "$(id -u)" -eq 0 ]; then
    printf '%s\n' unshare --user --
  fi
}

vtctldclient_cmd() {
  "$POINTSMAN_VITESS_BIN/vtctldclient" --server "$POINTSMAN_VTCTLD_GRPC" "$@"
}

start_vtctld() {
  local topo
  topo=$(_vitess_topo_address "${1:-}")
  [ -n "$topo" ] || { echo "start_vtctld: no etcd endpoint (argument or POINTSMAN_TEST_ETCD)" >&2; return 1; }
  ensure_vitess_binaries || return 1
  VTCTLD_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pointsman-vtctld.XXXXXX")
  export VTCTLD_DIR
  local http_port grpc_port
  http_port=$(_vitess_free_port); grpc_port=$(_vitess_free_port "$http_port")

  local prefix=() tls=()
  mapfile -t prefix < <(vitess_non_root_prefix)
  # vtctld's own server stays plaintext (vtctldclient reaches it as before); as a client of TLS tablets
  # it needs both client flag sets: tablet-manager RPCs and query-service calls (VDiff, health)
  mapfile -t tls < <(vitess_grpc_tls_flags tablet-manager-client; vitess_grpc_tls_flags tablet-client)
  VTDATAROOT=$VTCTLD_DIR "${prefix[@]}" "$POINTSMAN_VITESS_BIN/vtctld" \
    --topo-implementation etcd2 \
    --topo-global-server-address "$topo" \
    --topo-global-root "$POINTSMAN_VITESS_GLOBAL_ROOT" \
    --service-map grpc-vtctl,grpc-vtctld \
    --backup-storage-implementation file --file-backup-storage-root "$VTCTLD_DIR/backups" \
    --log-format text \
    --bind-address 127.0.0.1 --port "$http_port" \
    --grpc-bind-address 127.0.0.1 --grpc-port "$grpc_port" \
    "${tls[@]}" \
    --pid-file "$VTCTLD_DIR/vtctld.pid" \
    >"$VTCTLD_DIR/vtctld.log" 2>&1 &
  VTCTLD_PID=$!
  export VTCTLD_PID
  export POINTSMAN_VTCTLD_GRPC="127.0.0.1:$grpc_port"
  export POINTSMAN_VTCTLD_HTTP="127.0.0.1:$http_port"

  local i
  for i in $(seq 120); do
    if ! kill -0 "$VTCTLD_PID" 2>/dev/null; then
      echo "vtctld exited; last log lines:" >&2; tail -n 20 "$VTCTLD_DIR/vtctld.log" >&2
      return 1
    fi
    if "$POINTSMAN_VITESS_BIN/vtctldclient" --server "$POINTSMAN_VTCTLD_GRPC" --action-timeout 2s \
         GetCellInfoNames >/dev/null 2>&1; then
      echo "vtctld on grpc $POINTSMAN_VTCTLD_GRPC, http $POINTSMAN_VTCTLD_HTTP (pid $VTCTLD_PID), topo $topo$POINTSMAN_VITESS_GLOBAL_ROOT, log in $VTCTLD_DIR"
      return 0
    fi
    sleep 0.5
  done
  echo "vtctld did not answer on $POINTSMAN_VTCTLD_GRPC; last log lines:" >&2
  tail -n 20 "$VTCTLD_DIR/vtctld.log" >&2
  return 1
}

ensure_vitess_cell() {
  local topo
  topo=$(_vitess_topo_address "${1:-}")
  if vtctldclient_cmd GetCellInfo "$POINTSMAN_VITESS_CELL" >/dev/null 2>&1; then return 0; fi
  vtctldclient_cmd AddCellInfo --root "$POINTSMAN_VITESS_CELL_ROOT" --server-address "$topo" "$POINTSMAN_VITESS_CELL"
}

stop_vtctld() {
  local pid=${VTCTLD_PID:-}
  if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
    local i
    for i in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
  fi
  [ -n "${VTCTLD_DIR:-}" ] && rm -rf "$VTCTLD_DIR"
  unset VTCTLD_PID VTCTLD_DIR POINTSMAN_VTCTLD_GRPC POINTSMAN_VTCTLD_HTTP
  return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case "${1:-}" in
    build)
      ensure_vitess_binaries
      echo "$POINTSMAN_VITESS_BIN"
      ;;
    *)
      echo "usage: $0 build    (or source it for ensure_vitess_binaries / start_vtctld / stop_vtctld)" >&2
      exit 2
      ;;
  esac
fi
