#!/usr/bin/env bash
# A small real Vitess 24 cluster on MariaDB 10.11, on loopback, with all data in one temporary folder:
# etcd, vtctld, one MariaDB + one unmanaged vttablet per shard, and vtgate (MySQL protocol).
#
# Source it to get the functions, or run it:
#   ./scripts/vitess-cluster.sh demo     start the cluster, run MoveTables commerce -> customer end to end, stop
#   ./scripts/vitess-cluster.sh up       start the cluster, print the addresses, wait for Ctrl-C / SIGTERM, stop
#
# Functions:
#   start_vitess_cluster    starts everything (returns at once if this shell already has a live cluster).
#                           On any failure it stops whatever it started and returns 1
#                           (POINTSMAN_VITESS_KEEP_LOGS=1 copies the logs to a folder it names first).
#                           Layout: POINTSMAN_VITESS_TABLETS_SPEC, words "uid:keyspace:shard[:type]", default
#                           "100:commerce:0 200:customer:-80 300:customer:80-". type is primary (default),
#                           replica or rdonly. A primary is made the PRIMARY of its shard with
#                           TabletExternallyReparented; a replica's MariaDB replicates (GTID) from the shard's
#                           primary, e.g. "100:commerce:0 101:commerce:0:replica 200:customer:-80 300:customer:80-".
#                           Keyspaces are created with durability policy none and an empty VSchema; no schema.
#                           POINTSMAN_VITESS_GRPC_TLS_DIR=<dir> (opt-in; see vitess_grpc_tls_flags in vitess.sh for
#                           the files): the vttablets serve gRPC over TLS and require client certificates
#                           signed by <dir>/ca.pem; vtctld, vtgate and the vttablets get the client flags.
#                           vtctld's and vtgate's own servers stay plaintext. Unset: no TLS anywhere.
#   stop_vitess_cluster     SIGTERM to vtgate, vttablets and vtctld, then to MariaDB and etcd (SIGKILL after 15 s
#                           each), removes the folder
#   vitess_cluster_demo     schema, VSchema, rows, then MoveTables create / VDiff / SwitchTraffic / ReverseTraffic /
#                           SwitchTraffic / Complete with reads and writes through vtgate (needs the default layout)
#   vitess_wait_workflow_running KS WF   waits until every stream of the workflow is Running with its copy done
#   vitess_cluster_rss_kib  prints each process's RSS (stderr) and the total in KiB
#   vitess_cluster_mysql    mariadb client connected to vtgate:  vitess_cluster_mysql -e 'show databases'
#   vitess_tablet_mysql U   mariadb client connected as root to the MariaDB under tablet uid U
#   vtctldclient_cmd ...    (from vitess.sh) vtctldclient against this cluster's vtctld
#
# Exports (all 127.0.0.1, free ports):
#   VITESS_CLUSTER_DIR            the temporary folder (logs: etcd.log, pointsman-vtctld.*/vtctld.log,
#                                 mysql-<uid>/mysqld.log, vttablet-<uid>.log, vtgate.log, and vtgate-queries.log:
#                                 vtgate's query log, JSON, only queries containing $POINTSMAN_VTGATE_QUERYLOG_TAG)
#   POINTSMAN_VITESS_ETCD         http://127.0.0.1:<port> (topo; global root /vitess/global, cell zone1 at /vitess/zone1)
#   POINTSMAN_VTCTLD_GRPC/HTTP    host:port
#   POINTSMAN_VTGATE_MYSQL_PORT   vtgate's MySQL protocol port (no authentication: any user, no password)
#   POINTSMAN_VTGATE_GRPC/HTTP    host:port
#   POINTSMAN_VITESS_TABLETS      one word per tablet: alias,keyspace/shard,type,grpc host:port,mysql port
#   POINTSMAN_TABLET_<uid>_GRPC, POINTSMAN_TABLET_<uid>_HTTP, POINTSMAN_TABLET_<uid>_MYSQL_PORT
#   POINTSMAN_VITESS_DB_PASSWORD  password of the vt_* MySQL users (vt_dba, vt_app, vt_filtered, ...), TCP from 127.0.0.1;
#                                 root has no password over each MariaDB's socket ($VITESS_CLUSTER_DIR/mysql-<uid>/mysql.sock)
# and writes the same as shell assignments to $VITESS_CLUSTER_DIR/env.
#
# Needs: etcd (etcd-server), mariadbd + mariadb-install-db + mariadb (mariadb-server, mariadb-client),
# python3 (free ports), unshare (util-linux) when run as root, and the Vitess binaries (vitess.sh builds them).
# An empty MariaDB data directory is cached per MariaDB version in ${POINTSMAN_CACHE:-$HOME/.cache/pointsman}.

_VITESS_CLUSTER_SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/vitess.sh
source "$_VITESS_CLUSTER_SCRIPT_DIR/vitess.sh"

: "${POINTSMAN_VITESS_TABLETS_SPEC:=100:commerce:0 200:customer:-80 300:customer:80-}"
# A throw-away password for MySQL users of servers that listen on loopback only for one run.
: "${POINTSMAN_VITESS_DB_PASSWORD:=vt-loopback-only}"
# The MySQL version vtgate announces to clients. Clients pick variable names by it, and the backends are
# MariaDB 10.11, which has 5.7's names: with vtgate's default (8.0.40) Connector/J asks for
# @@transaction_isolation and every connection fails with "Unknown system variable 'transaction_isolation'".
: "${POINTSMAN_VTGATE_MYSQL_SERVER_VERSION:=5.7.9-Vitess}"
# vtgate logs to vtgate-queries.log only the queries whose text contains this (a comment in a test's
# probe): it is where vtgate says how a mirrored query did on the mirror target (MirrorTargetError),
# which it reports nowhere else per query, and a tag keeps the load's writes out of the file.
: "${POINTSMAN_VTGATE_QUERYLOG_TAG:=pointsman-probe}"

# start_vtctld (vitess.sh) takes its ports from _vitess_free_port: inside a cluster, from the cluster's pool.
_vitess_free_port() {
  if [ -n "${VITESS_CLUSTER_DIR:-}" ] && [ -d "$VITESS_CLUSTER_DIR" ]; then _vc_free_port; else loopback_free_port "$@"; fi
}

_vc_log() { echo "vitess-cluster: $*" >&2; }
# POINTSMAN_VITESS_TRACE=1 prints when each start/stop phase ends (seconds since the start of start_vitess_cluster)
_vc_trace() { [ -z "${POINTSMAN_VITESS_TRACE:-}" ] || echo "vitess-cluster: +$((SECONDS - ${_VC_T0:-0})) s $*" >&2; }

# Records a started process so that stop_vitess_cluster (and failure cleanup) stops it.
_vc_track() { echo "$1 $2" >>"$VITESS_CLUSTER_DIR/pids"; }

# The _vc_start_* functions leave the pid they started in _VC_STARTED, and are called as they are,
# not in $(...): a process started in a command substitution's subshell is left to init when the
# subshell ends, so it is no descendant of this script. A caller that cannot wait for this script's
# trap (VitessCluster after a start that timed out) kills the script's descendants, and MariaDB
# and the vttablets then ran on.

_vc_wait() {
  local what=$1 tries=$2 pid=$3 log=$4; shift 4
  local i
  for i in $(seq "$tries"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      _vc_log "$what exited; last lines of $log:"; tail -n 25 "$log" >&2
      return 1
    fi
    sleep 0.25
  done
  _vc_log "$what did not come up; last lines of $log:"; tail -n 25 "$log" >&2
  return 1
}

# Free loopback ports, distinct within the cluster: a pool of 40 consecutive ones, filled by one
# python3 call (python3 starts slowly on a loaded machine) of loopback_free_ports (ports.sh, sourced
# by vitess.sh).
_vc_free_port() {
  local pool="$VITESS_CLUSTER_DIR/ports-free" p
  if [ ! -s "$pool" ]; then
    loopback_free_ports 40 >"$pool" || return 1
  fi
  p=$(head -n 1 "$pool")
  sed -i 1d "$pool"
  echo "$p"
}

# The SQL run by every MariaDB at start (--init-file): the users vttablet connects as, over TCP from
# 127.0.0.1, and the databases of the keyspaces. Kept out of the binlog so no GTID is spent on it.
_vc_init_sql() {
  local pw=$POINTSMAN_VITESS_DB_PASSWORD u
  echo "SET sql_log_bin = 0;"
  for u in vt_dba vt_app vt_appdebug vt_allprivs vt_repl vt_filtered vt_monitoring; do
    echo "CREATE USER IF NOT EXISTS '$u'@'%' IDENTIFIED BY '$pw';"
  done
  # vttablet's users get everything: this is a throw-away loopback server (Vitess's own grants are narrower).
  echo "GRANT ALL ON *.* TO 'vt_dba'@'%' WITH GRANT OPTION;"
  for u in vt_app vt_appdebug vt_allprivs vt_repl vt_filtered vt_monitoring; do
    echo "GRANT ALL ON *.* TO '$u'@'%';"
  done
  local ks
  for ks in $(_vc_keyspaces); do echo "CREATE DATABASE IF NOT EXISTS vt_$ks;"; done
  echo "FLUSH PRIVILEGES;"
}

_vc_keyspaces() {
  local w
  for w in $POINTSMAN_VITESS_TABLETS_SPEC; do echo "${w#*:}" | cut -d: -f1; done | sort -u
}

# An empty MariaDB data directory (mariadb-install-db output), made once per mariadbd version under
# ${POINTSMAN_CACHE:-$HOME/.cache/pointsman}; exports _VC_MYSQL_TEMPLATE.
_vc_mariadb_template() {
  local ver dir user=root
  ver=$(mariadbd --version | awk '{print $3}')
  dir="${POINTSMAN_CACHE:-$HOME/.cache/pointsman}/mariadb-datadir-$ver"
  [ "$(id -u)" -eq 0 ] || user=$(id -un)
  if [ ! -d "$dir" ]; then
    mkdir -p "$(dirname "$dir")"
    local tmp
    tmp=$(mktemp -d "$dir.XXXXXX")
    if ! mariadb-install-db --no-defaults --datadir="$tmp/data" --user="$user" \
         --auth-root-authentication-method=normal --skip-test-db >"$VITESS_CLUSTER_DIR/mysql-install.log" 2>&1; then
      _vc_log "mariadb-install-db failed:"; tail -n 20 "$VITESS_CLUSTER_DIR/mysql-install.log" >&2
      rm -rf "$tmp"; return 1
    fi
    # a concurrent caller may have won the race; either copy is fine
    mv -T "$tmp/data" "$dir" 2>/dev/null || true
    rm -rf "$tmp"
  fi
  _VC_MYSQL_TEMPLATE=$dir
}

_vc_start_mariadb() {
  local uid=$1 port=$2 d="$VITESS_CLUSTER_DIR/mysql-$1"
  local user=root
  [ "$(id -u)" -eq 0 ] || user=$(id -un)
  mkdir -p "$d/tmp"
  cp -a "$_VC_MYSQL_TEMPLATE" "$d/data"
  _vc_init_sql >"$d/init.sql"
  mariadbd --no-defaults --datadir="$d/data" --user="$user" \
    --bind-address=127.0.0.1 --port="$port" --socket="$d/mysql.sock" --pid-file="$d/mysqld.pid" \
    --tmpdir="$d/tmp" --server-id="$uid" --log-bin=mysql-bin --binlog-format=ROW --log-slave-updates \
    --gtid-strict-mode=1 --gtid-domain-id=0 --skip-name-resolve \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    --sql-mode=STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION \
    --innodb-buffer-pool-size=32M --innodb-log-file-size=16M --max-connections=300 \
    --performance-schema=OFF --init-file="$d/init.sql" \
    >"$d/mysqld.log" 2>&1 &
  _vc_track $! "mariadbd-$uid"
  _VC_STARTED=$!
}

_vc_start_vttablet() {
  local uid=$1 ks=$2 shard=$3 ttype=$4 mysql_port=$5 http=$6 grpc=$7 init_type=replica
  local alias pw=$POINTSMAN_VITESS_DB_PASSWORD
  alias=$(printf '%s-%010d' "$POINTSMAN_VITESS_CELL" "$uid")
  # a primary starts as REPLICA and is then promoted in the topology with TabletExternallyReparented
  [ "$ttype" = rdonly ] && init_type=rdonly
  mkdir -p "$VITESS_CLUSTER_DIR/vttablet-$uid"
  local prefix=() tls=()
  mapfile -t prefix < <(vitess_non_root_prefix)
  # a TLS tablet is also a client of tablets: tablet-manager RPCs and VReplication's source reads
  mapfile -t tls < <(vitess_grpc_tls_flags tablet-server; vitess_grpc_tls_flags tablet-manager-client
                     vitess_grpc_tls_flags tablet-client)
  VTDATAROOT="$VITESS_CLUSTER_DIR/vttablet-$uid" "${prefix[@]}" "$POINTSMAN_VITESS_BIN/vttablet" \
    --topo-implementation etcd2 --topo-global-server-address "$POINTSMAN_VITESS_ETCD" \
    --topo-global-root "$POINTSMAN_VITESS_GLOBAL_ROOT" \
    --tablet-path "$alias" --tablet-hostname 127.0.0.1 \
    --init-keyspace "$ks" --init-shard "$shard" --init-tablet-type "$init_type" \
    --unmanaged --db-host 127.0.0.1 --db-port "$mysql_port" --db-charset utf8mb4 \
    --db-app-user vt_app --db-app-password "$pw" \
    --db-appdebug-user vt_appdebug --db-appdebug-password "$pw" \
    --db-allprivs-user vt_allprivs --db-allprivs-password "$pw" \
    --db-dba-user vt_dba --db-dba-password "$pw" \
    --db-filtered-user vt_filtered --db-filtered-password "$pw" \
    --db-repl-user vt_repl --db-repl-password "$pw" \
    --db-erepl-user vt_repl --db-erepl-password "$pw" \
    --health-check-interval 1s --heartbeat-on-demand-duration 5s \
    --queryserver-config-pool-size 4 --queryserver-config-stream-pool-size 8 \
    --queryserver-config-transaction-cap 32 --app-pool-size 8 --dba-pool-size 4 \
    --service-map grpc-queryservice,grpc-tabletmanager,grpc-updatestream \
    --bind-address 127.0.0.1 --port "$http" --grpc-bind-address 127.0.0.1 --grpc-port "$grpc" \
    "${tls[@]}" \
    --pid-file "$VITESS_CLUSTER_DIR/vttablet-$uid/vttablet.pid" --log-format text \
    >"$VITESS_CLUSTER_DIR/vttablet-$uid.log" 2>&1 &
  _vc_track $! "vttablet-$uid"
  _VC_STARTED=$!
}

# vtgate buffers writes through a Reshard's cut-over; Vitess's default lets one shard be buffered
# only once a minute (--buffer-min-time-between-failovers 1m), after which a second switch within the
# minute fails its writes with "primary is not serving". The tests and demos switch back and forth
# several times a minute, so the cluster allows it every second (POINTSMAN_VTGATE_BUFFER_MIN_TIME_BETWEEN_FAILOVERS).
_vc_start_vtgate() {
  local mysql_port=$1 http=$2 grpc=$3
  mkdir -p "$VITESS_CLUSTER_DIR/vtgate"
  local prefix=() tls=()
  mapfile -t prefix < <(vitess_non_root_prefix)
  # vtgate's own servers stay plaintext; it reaches TLS tablets with the query-service client flags
  mapfile -t tls < <(vitess_grpc_tls_flags tablet-client)
  VTDATAROOT="$VITESS_CLUSTER_DIR/vtgate" "${prefix[@]}" "$POINTSMAN_VITESS_BIN/vtgate" \
    --topo-implementation etcd2 --topo-global-server-address "$POINTSMAN_VITESS_ETCD" \
    --topo-global-root "$POINTSMAN_VITESS_GLOBAL_ROOT" \
    --cell "$POINTSMAN_VITESS_CELL" --cells-to-watch "$POINTSMAN_VITESS_CELL" \
    --tablet-types-to-wait PRIMARY --enable-buffer \
    --buffer-min-time-between-failovers "${POINTSMAN_VTGATE_BUFFER_MIN_TIME_BETWEEN_FAILOVERS:-1s}" \
    --mysql-server-version "$POINTSMAN_VTGATE_MYSQL_SERVER_VERSION" \
    --mysql-server-port "$mysql_port" --mysql-server-bind-address 127.0.0.1 --mysql-auth-server-impl none \
    --service-map grpc-vtgateservice \
    --bind-address 127.0.0.1 --port "$http" --grpc-bind-address 127.0.0.1 --grpc-port "$grpc" \
    "${tls[@]}" \
    --log-queries-to-file "$VITESS_CLUSTER_DIR/vtgate-queries.log" --querylog-format json \
    --querylog-filter-tag "$POINTSMAN_VTGATE_QUERYLOG_TAG" \
    --pid-file "$VITESS_CLUSTER_DIR/vtgate/vtgate.pid" --log-format text \
    >"$VITESS_CLUSTER_DIR/vtgate.log" 2>&1 &
  _vc_track $! vtgate
  _VC_STARTED=$!
}

vitess_cluster_mysql() {
  mariadb --no-defaults -h127.0.0.1 -P"$POINTSMAN_VTGATE_MYSQL_PORT" -uapp "$@"
}

vitess_tablet_mysql() {
  local uid=$1; shift
  mariadb --no-defaults --socket="$VITESS_CLUSTER_DIR/mysql-$uid/mysql.sock" -uroot "$@"
}

_vc_write_env() {
  local f="$VITESS_CLUSTER_DIR/env" v
  : >"$f"
  for v in VITESS_CLUSTER_DIR POINTSMAN_VITESS_ETCD POINTSMAN_VTCTLD_GRPC POINTSMAN_VTCTLD_HTTP \
           POINTSMAN_VTGATE_MYSQL_PORT POINTSMAN_VTGATE_GRPC POINTSMAN_VTGATE_HTTP POINTSMAN_VITESS_TABLETS \
           POINTSMAN_VITESS_DB_PASSWORD POINTSMAN_VITESS_BIN POINTSMAN_VTGATE_QUERYLOG_TAG $(compgen -v POINTSMAN_TABLET_); do
    printf '%s=%q\n' "$v" "${!v}" >>"$f"
  done
}

_vc_running() {
  [ -n "${VITESS_CLUSTER_DIR:-}" ] && [ -f "$VITESS_CLUSTER_DIR/pids" ] || return 1
  local pid name
  while read -r pid name; do kill -0 "$pid" 2>/dev/null || return 1; done <"$VITESS_CLUSTER_DIR/pids"
}

start_vitess_cluster() {
  if _vc_running; then
    _vc_log "already running in $VITESS_CLUSTER_DIR"
    return 0
  fi
  [ -n "${VITESS_CLUSTER_DIR:-}" ] && stop_vitess_cluster
  local t0=$SECONDS
  _VC_T0=$SECONDS
  ensure_vitess_binaries || return 1
  local b
  for b in etcd mariadbd mariadb-install-db mariadb; do
    command -v "$b" >/dev/null 2>&1 || { _vc_log "$b is not installed"; return 1; }
  done
  VITESS_CLUSTER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pointsman-vitess.XXXXXX")
  export VITESS_CLUSTER_DIR
  # named first, so that a caller whose wait runs out can read the logs before the cluster is stopped
  _vc_trace "folder $VITESS_CLUSTER_DIR"
  : >"$VITESS_CLUSTER_DIR/pids"
  if ! _vc_start_all; then
    _vc_log "start failed; stopping what was started"
    if [ -n "${POINTSMAN_VITESS_KEEP_LOGS:-}" ]; then
      local keep
      keep=$(mktemp -d "${TMPDIR:-/tmp}/pointsman-vitess-failed.XXXXXX")
      cp "$VITESS_CLUSTER_DIR"/*.log "$VITESS_CLUSTER_DIR"/pointsman-vtctld.*/vtctld.log "$keep/" 2>/dev/null
      local f
      for f in "$VITESS_CLUSTER_DIR"/mysql-*/mysqld.log; do
        [ -f "$f" ] && cp "$f" "$keep/$(basename "$(dirname "$f")").log"
      done
      _vc_log "logs kept in $keep"
    fi
    stop_vitess_cluster
    return 1
  fi
  _vc_write_env
  _vc_log "cluster up in $((SECONDS - t0)) s: vtgate mysql 127.0.0.1:$POINTSMAN_VTGATE_MYSQL_PORT, vtctld $POINTSMAN_VTCTLD_GRPC, etcd $POINTSMAN_VITESS_ETCD, dir $VITESS_CLUSTER_DIR"
}

_vc_start_all() {
  local d=$VITESS_CLUSTER_DIR
  # etcd
  local etcd_port etcd_peer
  etcd_port=$(_vc_free_port); etcd_peer=$(_vc_free_port)
  etcd --name vitess-topo --data-dir "$d/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "vitess-topo=http://127.0.0.1:$etcd_peer" >"$d/etcd.log" 2>&1 &
  local etcd_pid=$!
  _vc_track $etcd_pid etcd
  export POINTSMAN_VITESS_ETCD="http://127.0.0.1:$etcd_port"

  # MariaDB: one data directory initialised once per MariaDB version (cached), copied for each tablet
  _vc_mariadb_template || return 1
  _vc_trace "MariaDB template ready"
  local w uid ks shard ttype
  declare -A mysql_port mysql_pid primary_of
  for w in $POINTSMAN_VITESS_TABLETS_SPEC; do
    IFS=: read -r uid ks shard ttype <<<"$w"; ttype=${ttype:-primary}
    mysql_port[$uid]=$(_vc_free_port)
    _vc_start_mariadb "$uid" "${mysql_port[$uid]}"
    mysql_pid[$uid]=$_VC_STARTED
  done

  _vc_wait etcd 120 $etcd_pid "$d/etcd.log" curl -fsS "http://127.0.0.1:$etcd_port/health" || return 1
  _vc_trace "etcd up"

  # vtctld (from vitess.sh), its folder inside ours; the cell and keyspaces
  local tmpdir_saved=${TMPDIR:-}
  TMPDIR=$d start_vtctld "$POINTSMAN_VITESS_ETCD" >/dev/null || { TMPDIR=$tmpdir_saved; return 1; }
  if [ -n "$tmpdir_saved" ]; then TMPDIR=$tmpdir_saved; else unset TMPDIR; fi
  _vc_track "$VTCTLD_PID" vtctld
  ensure_vitess_cell "$POINTSMAN_VITESS_ETCD" >/dev/null || return 1
  for ks in $(_vc_keyspaces); do
    vtctldclient_cmd GetKeyspace "$ks" >/dev/null 2>&1 || vtctldclient_cmd CreateKeyspace "$ks" >/dev/null || return 1
  done
  # shards in the order the spec lists them: a shard created while an overlapping one serves does not
  # serve (Vitess's rule), so "…:customer:0 …:customer:-80 …:customer:80-" is a Reshard's starting point
  local created=" "
  for w in $POINTSMAN_VITESS_TABLETS_SPEC; do
    IFS=: read -r uid ks shard ttype <<<"$w"
    case "$created" in *" $ks/$shard "*) continue ;; esac
    vtctldclient_cmd GetShard "$ks/$shard" >/dev/null 2>&1 || vtctldclient_cmd CreateShard -- "$ks/$shard" >/dev/null || return 1
    created="$created$ks/$shard "
  done
  _vc_trace "vtctld up, cell, keyspaces and shards created"

  for w in $POINTSMAN_VITESS_TABLETS_SPEC; do
    IFS=: read -r uid ks shard ttype <<<"$w"; ttype=${ttype:-primary}
    _vc_wait "MariaDB $uid" 240 "${mysql_pid[$uid]}" "$d/mysql-$uid/mysqld.log" \
      mariadb --no-defaults -h127.0.0.1 -P"${mysql_port[$uid]}" -uvt_dba -p"$POINTSMAN_VITESS_DB_PASSWORD" -e 'SELECT 1' \
      || return 1
  done
  _vc_trace "MariaDB servers up"
  # replicas replicate (MariaDB GTID) from their shard's primary; all servers start from the same
  # empty template with nothing in their binlogs, so no copy of data is needed
  for w in $POINTSMAN_VITESS_TABLETS_SPEC; do
    IFS=: read -r uid ks shard ttype <<<"$w"; ttype=${ttype:-primary}
    [ "$ttype" = primary ] && primary_of[$ks/$shard]=$uid
  done
  for w in $POINTSMAN_VITESS_TABLETS_SPEC; do
    IFS=: read -r uid ks shard ttype <<<"$w"; ttype=${ttype:-primary}
    [ "$ttype" = primary ] && continue
    local p=${primary_of[$ks/$shard]:-}
    [ -n "$p" ] || { _vc_log "tablet $uid ($ttype): no primary tablet for $ks/$shard in POINTSMAN_VITESS_TABLETS_SPEC"; return 1; }
    vitess_tablet_mysql "$uid" -e "SET GLOBAL read_only = 1;
      CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = ${mysql_port[$p]}, MASTER_USER = 'vt_repl',
        MASTER_PASSWORD = '$POINTSMAN_VITESS_DB_PASSWORD', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1;
      START SLAVE;" || return 1
  done

  # vttablets
  local http grpc alias tablets=()
  declare -A tablet_pid
  for w in $POINTSMAN_VITESS_TABLETS_SPEC; do
    IFS=: read -r uid ks shard ttype <<<"$w"; ttype=${ttype:-primary}
    http=$(_vc_free_port); grpc=$(_vc_free_port)
    _vc_start_vttablet "$uid" "$ks" "$shard" "$ttype" "${mysql_port[$uid]}" "$http" "$grpc"
    tablet_pid[$uid]=$_VC_STARTED
    alias=$(printf '%s-%010d' "$POINTSMAN_VITESS_CELL" "$uid")
    export "POINTSMAN_TABLET_${uid}_GRPC=127.0.0.1:$grpc" "POINTSMAN_TABLET_${uid}_HTTP=127.0.0.1:$http" \
           "POINTSMAN_TABLET_${uid}_MYSQL_PORT=${mysql_port[$uid]}"
    tablets+=("$alias,$ks/$shard,$ttype,127.0.0.1:$grpc,${mysql_port[$uid]}")
  done
  export POINTSMAN_VITESS_TABLETS="${tablets[*]}"
  for w in $POINTSMAN_VITESS_TABLETS_SPEC; do
    IFS=: read -r uid ks shard ttype <<<"$w"; ttype=${ttype:-primary}
    alias=$(printf '%s-%010d' "$POINTSMAN_VITESS_CELL" "$uid")
    _vc_wait "vttablet $uid" 240 "${tablet_pid[$uid]}" "$d/vttablet-$uid.log" \
      vtctldclient_cmd --action-timeout 2s GetTablet "$alias" || return 1
    if [ "$ttype" = primary ]; then
      # unmanaged tablets cannot be reparented by Vitess; tell it the tablet's MariaDB is the shard primary
      vtctldclient_cmd TabletExternallyReparented "$alias" >/dev/null || return 1
    fi
    _vc_trace "vttablet $uid up ($ttype)"
  done

  # vtgate
  local vg_mysql vg_http vg_grpc vg_pid
  vg_mysql=$(_vc_free_port); vg_http=$(_vc_free_port); vg_grpc=$(_vc_free_port)
  _vc_start_vtgate "$vg_mysql" "$vg_http" "$vg_grpc"
  vg_pid=$_VC_STARTED
  export POINTSMAN_VTGATE_MYSQL_PORT=$vg_mysql POINTSMAN_VTGATE_GRPC="127.0.0.1:$vg_grpc" POINTSMAN_VTGATE_HTTP="127.0.0.1:$vg_http"
  _vc_wait vtgate 240 "$vg_pid" "$d/vtgate.log" vitess_cluster_mysql -e 'SELECT 1' || return 1
  _vc_trace "vtgate answers"
}

# SIGTERM to the given "pid name" lines at once, waits up to 15 s for all, then SIGKILL.
_vc_stop_group() {
  local pids=() names=() pid name i alive gone=()
  while read -r pid name; do [ -n "$pid" ] && { pids+=("$pid"); names+=("$name"); }; done
  [ ${#pids[@]} -gt 0 ] || return 0
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  local round
  for round in $(seq 60); do
    alive=0
    for i in "${!pids[@]}"; do
      if kill -0 "${pids[$i]}" 2>/dev/null; then alive=1
      elif [ -z "${gone[$i]:-}" ]; then gone[$i]=1; _vc_trace "${names[$i]} stopped"; fi
    done
    [ $alive -eq 0 ] && return 0
    sleep 0.25
  done
  for i in "${!pids[@]}"; do
    if kill -0 "${pids[$i]}" 2>/dev/null; then
      _vc_log "${names[$i]} (pid ${pids[$i]}) still running 15 s after SIGTERM; SIGKILL"
      kill -9 "${pids[$i]}" 2>/dev/null
    fi
  done
}

stop_vitess_cluster() {
  local d=${VITESS_CLUSTER_DIR:-}
  [ -n "$d" ] || return 0
  _VC_T0=$SECONDS
  if [ -f "$d/pids" ]; then
    # Vitess first, while etcd and MariaDB are still there (a vttablet whose topo is gone waits out
    # its 10 s --onterm-timeout), then MariaDB and etcd.
    grep -E ' (vtgate|vttablet-.*|vtctld)$' "$d/pids" | _vc_stop_group
    grep -vE ' (vtgate|vttablet-.*|vtctld)$' "$d/pids" | _vc_stop_group
  fi
  unset VTCTLD_PID
  stop_vtctld   # vtctld is already stopped: this only forgets its variables and folder
  rm -rf "$d"
  unset VITESS_CLUSTER_DIR POINTSMAN_VITESS_ETCD POINTSMAN_VTGATE_MYSQL_PORT POINTSMAN_VTGATE_GRPC \
        POINTSMAN_VTGATE_HTTP POINTSMAN_VITESS_TABLETS $(compgen -v POINTSMAN_TABLET_)
  return 0
}

# Waits until every stream of workflow $2 (target keyspace $1) is Running with its copy phase done.
vitess_wait_workflow_running() {
  local ks=$1 wf=$2 tries=${3:-240} out i
  for i in $(seq "$tries"); do
    out=$(vtctldclient_cmd MoveTables --workflow "$wf" --target-keyspace "$ks" show --include-logs=false 2>/dev/null)
    if python3 -c '
import json, sys
wfs = json.load(sys.stdin).get("workflows", [])
streams = [st for wf in wfs for ss in wf.get("shard_streams", {}).values() for st in ss.get("streams", [])]
ok = streams and all(st.get("state") == "Running" and not st.get("copy_states") for st in streams)
sys.exit(0 if ok else 1)' <<<"$out" 2>/dev/null; then
      return 0
    fi
    sleep 0.5
  done
  _vc_log "workflow $ks.$wf is not running with its copy done:"; echo "$out" | head -n 60 >&2
  return 1
}

# The MoveTables of the demos: schema and VSchema (commerce unsharded with sequences, customer sharded
# by hash of customer_id), rows written through vtgate, MoveTables create (commerce2customer: customer
# and corder), returning once the copy is done and the streams run. Files go to folder $1.
vitess_movetables_setup() {
  local d=$1
  mkdir -p "$d"
  cat >"$d/commerce.sql" <<'SQL'
create table customer(customer_id bigint not null auto_increment, email varchar(128), primary key(customer_id)) engine=InnoDB;
create table corder(order_id bigint not null auto_increment, customer_id bigint, sku varchar(128), price bigint, primary key(order_id)) engine=InnoDB;
create table customer_seq(id int, next_id bigint, cache bigint, primary key(id)) comment 'vitess_sequence';
create table order_seq(id int, next_id bigint, cache bigint, primary key(id)) comment 'vitess_sequence';
SQL
  cat >"$d/commerce_vschema.json" <<'JSON'
{"sharded": false, "tables": {"customer": {}, "corder": {}, "customer_seq": {"type": "sequence"}, "order_seq": {"type": "sequence"}}}
JSON
  cat >"$d/customer_vschema.json" <<'JSON'
{"sharded": true, "vindexes": {"hash": {"type": "hash"}},
 "tables": {
  "customer": {"column_vindexes": [{"column": "customer_id", "name": "hash"}],
               "auto_increment": {"column": "customer_id", "sequence": "commerce.customer_seq"}},
  "corder": {"column_vindexes": [{"column": "customer_id", "name": "hash"}],
             "auto_increment": {"column": "order_id", "sequence": "commerce.order_seq"}}}}
JSON
  _step "ApplySchema commerce" vtctldclient_cmd ApplySchema --sql-file "$d/commerce.sql" commerce >/dev/null || return 1
  _step "ApplyVSchema commerce" vtctldclient_cmd ApplyVSchema --vschema-file "$d/commerce_vschema.json" commerce >/dev/null || return 1
  _step "rows into commerce" vitess_cluster_mysql commerce -e "
    insert into customer_seq(id, next_id, cache) values (0, 1000, 100);
    insert into order_seq(id, next_id, cache) values (0, 1000, 100);
    insert into customer(email) values ('alice@example.com'), ('bob@example.com'), ('carol@example.com'), ('dan@example.com'), ('eve@example.com');
    insert into corder(customer_id, sku, price) values (1, 'SKU-1001', 100), (2, 'SKU-1002', 30), (3, 'SKU-1002', 30), (4, 'SKU-1002', 30), (5, 'SKU-1002', 30);" || return 1
  _step "ApplyVSchema customer" vtctldclient_cmd ApplyVSchema --vschema-file "$d/customer_vschema.json" customer >/dev/null || return 1
  _step "MoveTables create" _vc_once_engines_open vtctldclient_cmd MoveTables --workflow commerce2customer \
    --target-keyspace customer create --source-keyspace commerce --tables customer,corder >/dev/null || return 1
  _step "copy done, streams Running" vitess_wait_workflow_running customer commerce2customer || return 1
}

# Runs "$@" (a vtctldclient command that needs the primaries' VReplication engines, such as a
# workflow's create) until vtctld stops answering "vreplication engine is closed", 60 s at most: a
# primary opens its engine a moment after its promotion, and vtctld refuses such a command meanwhile,
# having created nothing. Any other failure is passed on at once, with its output.
_vc_once_engines_open() {
  local i out
  for i in $(seq 240); do
    if out=$("$@" 2>&1); then
      [ -z "$out" ] || printf '%s\n' "$out"
      return 0
    fi
    case "$out" in
      *"vreplication engine is closed"*) sleep 0.25 ;;
      *) printf '%s\n' "$out" >&2; return 1 ;;
    esac
  done
  printf '%s\n' "$out" >&2
  return 1
}

# Runs "$@" as demo step $1 (the rest is the command), logging how long it took.
_step() {
  local name=$1 s=$SECONDS
  shift
  "$@" || { _vc_log "demo step '$name' failed"; return 1; }
  _vc_log "demo: $name ($((SECONDS - s)) s)"
}

# The end-to-end check with vtctldclient: vitess_movetables_setup, then VDiff / SwitchTraffic /
# ReverseTraffic / SwitchTraffic / Complete, with reads and writes through vtgate after each step.
vitess_cluster_demo() {
  local d="$VITESS_CLUSTER_DIR/demo" t0=$SECONDS
  local mt=(MoveTables --workflow commerce2customer --target-keyspace customer)
  vitess_movetables_setup "$d" || return 1
  _step "write during replication" vitess_cluster_mysql -e "insert into customer(email) values ('frank@example.com')" || return 1
  _step "VDiff" vtctldclient_cmd VDiff --workflow commerce2customer --target-keyspace customer create --wait --wait-update-interval 1s >"$d/vdiff.txt" || return 1
  grep -q 'HasMismatch:  false' "$d/vdiff.txt" || { _vc_log "VDiff:"; cat "$d/vdiff.txt" >&2; return 1; }
  _step "SwitchTraffic" vtctldclient_cmd "${mt[@]}" switchtraffic >/dev/null || return 1
  _step "write after SwitchTraffic" vitess_cluster_mysql -e "insert into customer(email) values ('grace@example.com'); insert into corder(customer_id, sku, price) values (6, 'SKU-1003', 70)" || return 1
  local n
  n=$(vitess_cluster_mysql -N -e "select count(*) from customer") && [ "$n" = 7 ] || { _vc_log "expected 7 customers through vtgate, got '$n'"; return 1; }
  _step "ReverseTraffic" vtctldclient_cmd "${mt[@]}" reversetraffic >/dev/null || return 1
  _step "write after ReverseTraffic" vitess_cluster_mysql -e "insert into customer(email) values ('heidi@example.com')" || return 1
  n=$(vitess_tablet_mysql "${POINTSMAN_VITESS_TABLETS_SPEC%%:*}" -N -e "select count(*) from vt_commerce.customer") && [ "$n" = 8 ] \
    || { _vc_log "expected 8 customers in commerce's MariaDB, got '$n'"; return 1; }
  _step "SwitchTraffic again" vtctldclient_cmd "${mt[@]}" switchtraffic >/dev/null || return 1
  _step "Complete" vtctldclient_cmd "${mt[@]}" complete >/dev/null || return 1
  n=$(vitess_cluster_mysql -N -e "select count(*) from customer") && [ "$n" = 8 ] || { _vc_log "expected 8 customers after Complete, got '$n'"; return 1; }
  _vc_log "demo passed in $((SECONDS - t0)) s"
}

# Sum of RSS (KiB) of the cluster's processes.
vitess_cluster_rss_kib() {
  local total=0 pid name rss
  while read -r pid name; do
    rss=$(awk '/^VmRSS:/{print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    echo "$name pid $pid rss ${rss:-0} KiB" >&2
    total=$((total + ${rss:-0}))
  done <"$VITESS_CLUSTER_DIR/pids"
  echo "$total"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  case "${1:-}" in
    demo)
      trap 'stop_vitess_cluster; exit 1' INT TERM
      start_vitess_cluster || exit 1
      rc=0
      vitess_cluster_demo || rc=1
      echo "RSS total: $(vitess_cluster_rss_kib) KiB"
      stop_vitess_cluster
      exit $rc
      ;;
    up)
      trap 'stop_vitess_cluster; exit 0' INT TERM
      start_vitess_cluster || exit 1
      cat "$VITESS_CLUSTER_DIR/env"
      echo "RSS total: $(vitess_cluster_rss_kib 2>/dev/null) KiB"
      # bash runs a trap only after the foreground command ends, so a foreground sleep would delay
      # the stop by up to its length; wait returns as soon as a trapped signal arrives
      sleep infinity &
      _vc_sleep_pid=$!
      trap 'kill "$_vc_sleep_pid" 2>/dev/null; stop_vitess_cluster; exit 0' INT TERM
      wait "$_vc_sleep_pid"
      ;;
    *)
      echo "usage: $0 demo|up    (or source it for start_vitess_cluster / stop_vitess_cluster)" >&2
      exit 2
      ;;
  esac
fi
