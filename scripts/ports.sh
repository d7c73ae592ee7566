#!/usr/bin/env bash
# Free loopback ports for the servers the scripts start: the test services' etcd and MariaDB, a
# Temporal dev server or a vtctld started by hand, and the pools of the Vitess clusters
# (vitess-cluster.sh). Source it.
#
# loopback_free_ports COUNT [PORT...]
#                      prints COUNT consecutive ports nothing listens on, one a line, each bound once
#                      to see it is free, at a random place below the kernel's ephemeral range and,
#                      when there is room, above 30000, where the Java tests take none (10000-19999
#                      single ports, 20000-29999 the sandbox's MariaDB blocks; a block taken by another
#                      test JVM, not yet listening, would be free to this check too). A port from the
#                      ephemeral range (a bind to port 0) can become the local port of another
#                      process's outgoing connection before its server binds it: a vttablet then found
#                      its gRPC port in use and never registered, and the Java tests lost etcd's port
#                      so in CI. The PORTs given are never printed: the ports a script has chosen for
#                      servers not started yet are free to this check too.
# loopback_free_port [PORT...]
#                      one such port.

loopback_free_ports() {
  local count=${1:?usage: loopback_free_ports COUNT [PORT...]}
  shift
  command -v python3 >/dev/null 2>&1 || { echo "loopback_free_ports needs python3 (apt-get install python3)" >&2; return 1; }
  python3 -c '
import random, socket, sys
count = int(sys.argv[1])
avoid = {int(p) for p in sys.argv[2:]}
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
lowest, highest = (30000, low - count) if low - count > 30000 + 400 else (10000, max(low, 10400 + count) - count)
for _ in range(500):
    base = random.randint(lowest, highest)
    block = range(base, base + count)
    if avoid.intersection(block):
        continue
    socks = []
    try:
        for port in block:
            s = socket.socket()
            socks.append(s)
            s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        for s in socks:
            s.close()
    print("\n".join(str(port) for port in block))
    break
else:
    raise SystemExit("no %d free consecutive loopback ports between %d and %d after 500 tries"
                     % (count, lowest, highest + count - 1))
' "$count" "$@"
}

loopback_free_port() {
  loopback_free_ports 1 "$@"
}
