#!/usr/bin/env bash
# Start a single-node Slurm on this machine, loopback only: munged, slurmctld and slurmd as root,
# the node with this machine's real CPUs and memory, LICENSES vQPU licences and as many vqpu GRES.
#   bash examples/slurm/start.sh STATE_DIR [LICENSES]      (default LICENSES=4)
#   source STATE_DIR/env     # sets SLURM_CONF for sbatch, squeue, sinfo
#   bash examples/slurm/stop.sh STATE_DIR
# Everything (config, keys, sockets, logs, state) stays in STATE_DIR; /etc is not touched.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
STATE=${1:?usage: start.sh STATE_DIR [LICENSES]}
LICENSES=${2:-4}
for cmd in munged slurmctld slurmd sinfo sbatch; do
    command -v "$cmd" >/dev/null || { echo "start.sh: $cmd not found: run 'bash $HERE/install.sh' first" >&2; exit 1; }
done
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)
if [ -f "$STATE/slurmctld.pid" ] && kill -0 "$(cat "$STATE/slurmctld.pid")" 2>/dev/null; then
    echo "start.sh: Slurm already running in $STATE" >&2; exit 1
fi
mkdir -p "$STATE/munge" "$STATE/ctld" "$STATE/spool"
chmod 700 "$STATE" "$STATE/munge"

# MUNGE with its own key and socket
if [ ! -f "$STATE/munge/munge.key" ]; then
    dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$STATE/munge/munge.key"
fi
munged --force --socket="$STATE/munge/munge.socket" --key-file="$STATE/munge/munge.key" \
    --pid-file="$STATE/munge/munged.pid" --log-file="$STATE/munge/munged.log" \
    --seed-file="$STATE/munge/munged.seed"

# slurm.conf from the template, with this node's hardware and two free ports
NODE=$(hostname -s)
HW=$(slurmd -C | head -n 1)
CPUS=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$HW")
MEMORY=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$HW")
read -r CTLD_PORT SLURMD_PORT < <(python3 "$HERE/free_ports.py" 2)
sed -e "s|@STATE@|$STATE|g" -e "s|@NODE@|$NODE|g" -e "s|@CPUS@|$CPUS|g" -e "s|@MEMORY@|$MEMORY|g" \
    -e "s|@LICENSES@|$LICENSES|g" -e "s|@CTLD_PORT@|$CTLD_PORT|g" -e "s|@SLURMD_PORT@|$SLURMD_PORT|g" \
    "$HERE/slurm.conf" > "$STATE/slurm.conf"
echo "Name=vqpu Count=$LICENSES" > "$STATE/gres.conf"
echo "export SLURM_CONF=$STATE/slurm.conf" > "$STATE/env"
export SLURM_CONF=$STATE/slurm.conf

slurmctld -i -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"

# wait (at most 30 s) until the node is idle
for _ in $(seq 60); do
    if [ "$(sinfo -h -N -o %t 2>/dev/null)" = "idle" ]; then
        echo "Slurm up: node $NODE ($CPUS CPUs, $MEMORY MB), Licenses=vqpu:$LICENSES, Gres=vqpu:$LICENSES; source $STATE/env"
        exit 0
    fi
    sleep 0.5
done
echo "start.sh: Slurm did not come up within 30 s; logs in $STATE" >&2
tail -n 5 "$STATE/slurmctld.log" "$STATE/slurmd.log" >&2 || true
exit 1
