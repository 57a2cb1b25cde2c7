"""Print N free loopback TCP ports (default 2) for the daemons of an emulated Slurm.

Usage: ``python3 examples/slurm/free_ports.py N``. The ports lie below the kernel's
range of ephemeral ports (``/proc/sys/net/ipv4/ip_local_port_range``), from which the
local ends of outgoing connections are taken: a port from that range, free when chosen,
can be taken by a connection before the daemon binds it (seen once with slurmdbd).
"""

import random
import socket
import sys

LOWEST = 10000


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports in [10000, ephemeral start) that are free now."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as ranges:
        ephemeral = int(ranges.read().split()[0])
    held = []
    try:
        for port in random.sample(range(LOWEST, max(ephemeral, LOWEST + 1000)), 1000):
            sock = socket.socket()
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                sock.close()
                continue
            held.append(sock)
            if len(held) == count:
                return [s.getsockname()[1] for s in held]
        raise SystemExit(f"free_ports.py: fewer than {count} free ports below {ephemeral}")
    finally:
        for sock in held:
            sock.close()


if __name__ == "__main__":
    text = sys.argv[1] if len(sys.argv) > 1 else "2"
    if not text.isdigit() or int(text) < 1:
        print(f"free_ports.py: N must be a positive integer, got {text!r}", file=sys.stderr)
        raise SystemExit(2)
    print(*free_ports(int(text)))
