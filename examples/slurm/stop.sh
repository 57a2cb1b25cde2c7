#!/usr/bin/env bash
# Stop the Slurm started by start.sh: cancel its jobs, then stop slurmd, slurmctld and munged
# by the ids in their pid files (SIGKILL after 10 s). Safe to run twice.
#   bash examples/slurm/stop.sh STATE_DIR
set -uo pipefail
STATE=${1:?usage: stop.sh STATE_DIR}
if [ -f "$STATE/slurm.conf" ] && [ -f "$STATE/slurmctld.pid" ]; then
    SLURM_CONF="$STATE/slurm.conf" timeout 10 scancel --full --user="$(id -un)" 2>/dev/null
fi
running() {  # running PID: a zombie has exited (init may reap the daemons' zombies seconds later)
    local stat
    stat=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $stat != Z* ]]
}
for pidfile in "$STATE/slurmd.pid" "$STATE/slurmctld.pid" "$STATE/munge/munged.pid"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    if kill "$pid" 2>/dev/null; then
        for _ in $(seq 100); do running "$pid" || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    fi
    rm -f "$pidfile"
done
exit 0
