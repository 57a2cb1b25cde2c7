#!/usr/bin/env bash
# Stop the cluster started by start.sh: cancel its jobs, then stop the slurmd of every node,
# slurmctld, slurmdbd, MariaDB and munged by the ids in their pid files (SIGKILL after 10 s).
# Safe to run twice.
#   bash examples/slurm/cluster/stop.sh STATE_DIR
set -uo pipefail
STATE=${1:?usage: stop.sh STATE_DIR}
if [ -f "$STATE/slurm.conf" ] && [ -f "$STATE/slurmctld.pid" ]; then
    SLURM_CONF="$STATE/slurm.conf" timeout 10 scancel --full --user="$(id -un)" 2>/dev/null
    sleep 1
fi
for pidfile in "$STATE"/slurmd-*.pid "$STATE/slurmctld.pid" "$STATE/slurmdbd.pid" "$STATE/mariadb.pid" \
        "$STATE/munge/munged.pid"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    if kill "$pid" 2>/dev/null; then
        for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$pid" 2>/dev/null
    fi
    rm -f "$pidfile"
done
exit 0
