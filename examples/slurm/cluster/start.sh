#!/usr/bin/env bash
# Start an emulated four-node Slurm cluster on this machine, loopback only: munged, a
# MariaDB server and slurmdbd (the accounting database that lets jobs resize), slurmctld,
# and one slurmd per node (c1-c3 in partition cpu, q1 in partition qpu).
#   bash examples/slurm/cluster/start.sh STATE_DIR
#   source STATE_DIR/env     # sets SLURM_CONF for sbatch, squeue, sinfo, scontrol
#   bash examples/slurm/cluster/stop.sh STATE_DIR
# Everything (config, keys, sockets, database, logs, state, the job records jobcomp.txt)
# stays in STATE_DIR; /etc is not touched. Needs root (slurmd starts jobs as their users).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
STATE=${1:?usage: start.sh STATE_DIR}
NODES="c1 c2 c3 q1"
for cmd in munged mariadbd slurmdbd slurmctld slurmd sinfo sbatch scontrol; do
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
# on any failure below, stop what has started
trap 'status=$?; [ "$status" -eq 0 ] || bash "$HERE/stop.sh" "$STATE" >/dev/null 2>&1; exit "$status"' EXIT

# MUNGE with its own key and socket
if [ ! -f "$STATE/munge/munge.key" ]; then
    dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$STATE/munge/munge.key"
fi
munged --force --socket="$STATE/munge/munge.socket" --key-file="$STATE/munge/munge.key" \
    --pid-file="$STATE/munge/munged.pid" --log-file="$STATE/munge/munged.log" \
    --seed-file="$STATE/munge/munged.seed"

# slurm.conf and slurmdbd.conf from the templates: this machine's name and seven free
# loopback ports (below the ephemeral range, see free_ports.py)
NODE=$(hostname -s)
read -r CTLD_PORT P1 P2 P3 P4 DBD_PORT DB_PORT < <(python3 "$HERE/../free_ports.py" 7)
sed -e "s|@STATE@|$STATE|g" -e "s|@NODE@|$NODE|g" -e "s|@CTLD_PORT@|$CTLD_PORT|g" \
    -e "s|@PORT_C1@|$P1|g" -e "s|@PORT_C2@|$P2|g" -e "s|@PORT_C3@|$P3|g" -e "s|@PORT_Q1@|$P4|g" \
    -e "s|@DBD_PORT@|$DBD_PORT|g" "$HERE/slurm.conf" > "$STATE/slurm.conf"
# slurmdbd reads slurmdbd.conf next to SLURM_CONF and refuses one others can read
sed -e "s|@STATE@|$STATE|g" -e "s|@DBD_PORT@|$DBD_PORT|g" -e "s|@DB_PORT@|$DB_PORT|g" \
    "$HERE/slurmdbd.conf" > "$STATE/slurmdbd.conf"
chmod 600 "$STATE/slurmdbd.conf"
install -m 755 "$HERE/task_prolog.sh" "$STATE/task_prolog.sh"
echo "export SLURM_CONF=$STATE/slurm.conf" > "$STATE/env"
export SLURM_CONF=$STATE/slurm.conf

# MariaDB for slurmdbd: its own data directory, loopback only, small buffers, and no grant
# tables, so any process on this machine can reach it without a password: an emulation
# for tests, not a set-up for shared machines. Files it may read or write: STATE/dbfiles.
mkdir -p "$STATE/db" "$STATE/dbfiles"
if [ ! -d "$STATE/db/mysql" ]; then  # the one system table slurmdbd needs (see mysql_proc.sql)
    mariadbd --no-defaults --bootstrap --user=root --datadir="$STATE/db" --innodb-use-native-aio=0 \
        < "$HERE/mysql_proc.sql" >>"$STATE/mariadb.log" 2>&1
fi
mariadbd --no-defaults --user=root --datadir="$STATE/db" --socket="$STATE/mariadb.sock" \
    --bind-address=127.0.0.1 --port="$DB_PORT" --skip-grant-tables --skip-name-resolve \
    --secure-file-priv="$STATE/dbfiles" \
    --pid-file="$STATE/mariadb.pid" --log-error="$STATE/mariadb.log" \
    --innodb-buffer-pool-size=32M --innodb-log-file-size=16M --innodb-use-native-aio=0 \
    </dev/null >>"$STATE/mariadb.log" 2>&1 &
echo $! > "$STATE/mariadb.pid"   # before mariadbd writes it, so that stop.sh finds it
wait_for() {  # wait_for SECONDS WHAT COMMAND...: poll COMMAND every 0.5 s
    local tries=$(($1 * 2)) what=$2; shift 2
    for _ in $(seq "$tries"); do "$@" 2>/dev/null && return 0; sleep 0.5; done
    echo "start.sh: $what did not come up within $((tries / 2)) s; logs in $STATE" >&2
    return 1
}
port_open() { python3 -c "import socket, sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1)" "$1"; }
wait_for 30 MariaDB port_open "$DB_PORT" || { tail -n 5 "$STATE/mariadb.log" >&2; exit 1; }
slurmdbd
wait_for 30 slurmdbd port_open "$DBD_PORT" || { tail -n 5 "$STATE/slurmdbd.log" >&2; exit 1; }

slurmctld -i -f "$SLURM_CONF"
for node in $NODES; do
    slurmd -f "$SLURM_CONF" -N "$node"
done

# wait (at most 30 s) until the four nodes are idle
four_idle() {
    kill -0 "$(cat "$STATE/slurmctld.pid" 2>/dev/null)" || return 2
    [ "$(timeout 5 sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq 4 ]
}
for _ in $(seq 60); do
    up=0
    four_idle 2>/dev/null || up=$?
    case $up in
        0) echo "Slurm up: nodes c1-c3 (partition cpu), q1 (partition qpu); source $STATE/env"; exit 0 ;;
        2) echo "start.sh: slurmctld exited; logs in $STATE" >&2; break ;;
    esac
    sleep 0.5
done
[ -f "$STATE/slurmctld.pid" ] && echo "start.sh: the cluster did not come up within 30 s; logs in $STATE" >&2
timeout 5 sinfo -N >&2 || true
tail -n 5 "$STATE/slurmctld.log" "$STATE"/slurmd-*.log >&2 || true
exit 1
