#!/usr/bin/env bash
# Start an emulated four-node Slurm cluster on this machine, loopback only: munged,
# slurmctld, and one slurmd per node (c1-c3 in partition cpu, q1 in partition qpu).
#   bash examples/slurm/cluster/start.sh STATE_DIR
#   source STATE_DIR/env     # sets SLURM_CONF for sbatch, squeue, sinfo, scontrol
#   bash examples/slurm/cluster/stop.sh STATE_DIR
# Everything (config, keys, sockets, logs, state, the job records jobcomp.txt) stays in
# STATE_DIR; /etc is not touched. Needs root (slurmd starts jobs as their users).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
STATE=${1:?usage: start.sh STATE_DIR}
NODES="c1 c2 c3 q1"
for cmd in munged slurmctld slurmd sinfo sbatch scontrol; do
    command -v "$cmd" >/dev/null || {
        echo "start.sh: $cmd not found: run 'bash $HERE/../install.sh' first" >&2; exit 1; }
done
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)
if [ -f "$STATE/slurmctld.pid" ] && kill -0 "$(cat "$STATE/slurmctld.pid")" 2>/dev/null; then
    echo "start.sh: Slurm already running in $STATE" >&2; exit 1
fi
mkdir -p "$STATE/munge" "$STATE/ctld"
chmod 700 "$STATE" "$STATE/munge"

# MUNGE with its own key and socket
if [ ! -f "$STATE/munge/munge.key" ]; then
    dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$STATE/munge/munge.key"
fi
munged --force --socket="$STATE/munge/munge.socket" --key-file="$STATE/munge/munge.key" \
    --pid-file="$STATE/munge/munged.pid" --log-file="$STATE/munge/munged.log" \
    --seed-file="$STATE/munge/munged.seed"

# slurm.conf from the template: this machine's name and five free loopback ports
NODE=$(hostname -s)
read -r CTLD_PORT P1 P2 P3 P4 < <(python3 - <<'PY'
import socket
socks = [socket.socket() for _ in range(5)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
PY
)
sed -e "s|@STATE@|$STATE|g" -e "s|@NODE@|$NODE|g" -e "s|@CTLD_PORT@|$CTLD_PORT|g" \
    -e "s|@PORT_C1@|$P1|g" -e "s|@PORT_C2@|$P2|g" -e "s|@PORT_C3@|$P3|g" -e "s|@PORT_Q1@|$P4|g" \
    "$HERE/slurm.conf" > "$STATE/slurm.conf"
install -m 755 "$HERE/task_prolog.sh" "$STATE/task_prolog.sh"
echo "export SLURM_CONF=$STATE/slurm.conf" > "$STATE/env"
export SLURM_CONF=$STATE/slurm.conf

slurmctld -i -f "$SLURM_CONF"
for node in $NODES; do
    slurmd -f "$SLURM_CONF" -N "$node"
done

# wait (at most 30 s) until the four nodes are idle
for _ in $(seq 60); do
    if [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -eq 4 ]; then
        echo "Slurm up: nodes c1-c3 (partition cpu), q1 (partition qpu); source $STATE/env"
        exit 0
    fi
    sleep 0.5
done
echo "start.sh: the cluster did not come up within 30 s; logs in $STATE" >&2
sinfo -N >&2 || true
tail -n 5 "$STATE/slurmctld.log" "$STATE"/slurmd-*.log >&2 || true
exit 1
