#!/usr/bin/env bash
# Free loopback ports for the servers the scripts start one at a time (the test services' etcd and
# MariaDB, a Temporal dev server or a vtctld started by hand). Source it.
#
# loopback_free_port [PORT...]
#                      prints a port nothing listens on, at random below the kernel's ephemeral range
#                      and, when there is room, above 30000, where the Java tests take none (10000-19999
#                      single ports, 20000-29999 the sandbox's MariaDB blocks). A port from the
#                      ephemeral range (a bind to port 0) can become the local port of another
#                      process's outgoing connection before the server binds it; the Java tests lost
#                      etcd's port so in CI. Vitess clusters take blocks of their own (vitess-cluster.sh).
#                      The PORTs given are never printed: the ports a script has chosen for servers not
#                      started yet are free to this check too.

loopback_free_port() {
  command -v python3 >/dev/null 2>&1 || { echo "loopback_free_port needs python3 (apt-get install python3)" >&2; return 1; }
  python3 -c '
import random, socket, sys
avoid = {int(p) for p in sys.argv[1:]}
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
lowest, highest = (30000, low - 1) if low - 1 > 30000 + 400 else (10000, max(low, 10400) - 1)
for _ in range(500):
    port = random.randint(lowest, highest)
    if port in avoid:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
else:
    raise SystemExit("no free loopback port between %d and %d after 500 tries" % (lowest, highest))
' "$@"
}
