#!/usr/bin/env bash
# Stop the cluster started by start.sh: cancel its jobs, then stop the slurmd of every node
# (all at once), slurmctld, slurmdbd, MariaDB and munged by the ids in their pid files
# (SIGKILL after 10 s). Safe to run twice.
#   bash examples/slurm/cluster/stop.sh STATE_DIR
set -uo pipefail
STATE=${1:?usage: stop.sh STATE_DIR}
if [ -f "$STATE/slurm.conf" ] && [ -f "$STATE/slurmctld.pid" ]; then
    SLURM_CONF="$STATE/slurm.conf" timeout 10 scancel --full --user="$(id -un)" 2>/dev/null
    sleep 1
fi
running() {  # running PID: a zombie has exited (init may reap the daemons' zombies seconds later)
    local stat
    stat=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $stat != Z* ]]
}
stop() {  # stop PIDFILE...: SIGTERM to each, wait until all have exited (SIGKILL after 10 s)
    local pidfile pid files=() pids=() alive
    for pidfile in "$@"; do
        [ -f "$pidfile" ] || continue
        files+=("$pidfile")
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null && pids+=("$pid")
    done
    for _ in $(seq 100); do
        alive=()
        for pid in ${pids[@]+"${pids[@]}"}; do running "$pid" && alive+=("$pid"); done
        pids=(${alive[@]+"${alive[@]}"})
        [ ${#pids[@]} -eq 0 ] && break
        sleep 0.1
    done
    [ ${#pids[@]} -eq 0 ] || kill -9 "${pids[@]}" 2>/dev/null
    rm -f ${files[@]+"${files[@]}"}
}
stop "$STATE"/slurmd-*.pid
stop "$STATE/slurmctld.pid"
stop "$STATE/slurmdbd.pid"
stop "$STATE/mariadb.pid"
stop "$STATE/munge/munged.pid"
exit 0
