#!/usr/bin/env bash
#SBATCH --job-name=hybrid-dpm
#SBATCH --partition=cpu --nodes=1 --ntasks=1
#SBATCH --time=00:30:00
#SBATCH hetjob
#SBATCH --partition=qpu --nodes=1 --ntasks=1
# Method (b): one heterogeneous job whose components each have their own MPI_COMM_WORLD,
# joined by MPI dynamic process management: the quantum service (partition qpu) opens a
# port and publishes it under a name, the colouring (partition cpu) looks it up and
# connects (backend spec mpi:NAME). When the quantum phase ends, the classical side
# releases the quantum component with scancel and goes on with classical work alone.
#   GRAPH=data/graphs/myciel3.col sbatch examples/slurm/cluster/hybrid_dpm.sh
# Environment: as hybrid_world.sh, plus BBQMIS_MPI_PORTS (directory of port files, on a
# file system both nodes see; default .mpi-ports in the submission directory) and
# POST_COMMAND (classical work after the quantum phase, default: none).
set -uo pipefail
: "${GRAPH:?set GRAPH to a graph file}"
OUT=${OUT:-hybrid-$SLURM_JOB_ID.json}
STATS=${STATS:-service-$SLURM_JOB_ID.json}
export BBQMIS_MPI_PORTS=${BBQMIS_MPI_PORTS:-$PWD/.mpi-ports}
NAME=qpu-$SLURM_JOB_ID
srun --het-group=1 python -m backends.mpi_service serve --backend "${QPU_BACKEND:-aer}" --name "$NAME" \
    --stats "$STATS" &
SERVICE=$!
# shellcheck disable=SC2086  # BBQMIS_ARGS is a list of options
srun --het-group=0 python -m bbqmis "$GRAPH" --sampler qaoa --backend "mpi:$NAME" --quiet --json "$OUT" \
    ${BBQMIS_ARGS:-}
status=$?
# The colouring said goodbye at its exit, so the service ends by itself; a failed colouring may
# not have: then the quantum component is cancelled at once.
[ "$status" -eq 0 ] && wait "$SERVICE"
scancel "${SLURM_JOB_ID}+1"
echo "quantum phase over (status $status): released component ${SLURM_JOB_ID}+1 (partition qpu)"
[ "$status" -eq 0 ] && [ -n "${POST_COMMAND:-}" ] && bash -c "$POST_COMMAND"
exit "$status"
