#!/usr/bin/env bash
#SBATCH --job-name=hybrid-world
#SBATCH --partition=cpu --nodes=1 --ntasks=1
#SBATCH --time=00:30:00
#SBATCH hetjob
#SBATCH --partition=qpu --nodes=1 --ntasks=1
# Method (a): one heterogeneous job whose classical component (partition cpu) and quantum
# component (partition qpu) share one MPI_COMM_WORLD. The quantum service is the last rank;
# the colouring reaches it with the backend spec mpi:world. The service stops when the
# classical rank says goodbye (at its exit), which ends the step and the job.
#   GRAPH=data/graphs/myciel3.col sbatch examples/slurm/cluster/hybrid_world.sh
# Environment: GRAPH (required); QPU_BACKEND (default aer); OUT (default
# hybrid-<jobid>.json); STATS (service statistics, default service-<jobid>.json);
# BBQMIS_ARGS (more options of python -m bbqmis, e.g. "--shots 256 --seed 1").
set -euo pipefail
: "${GRAPH:?set GRAPH to a graph file}"
OUT=${OUT:-hybrid-$SLURM_JOB_ID.json}
STATS=${STATS:-service-$SLURM_JOB_ID.json}
# shellcheck disable=SC2086  # BBQMIS_ARGS is a list of options
srun --het-group=0 python -m bbqmis "$GRAPH" --executor serial --sampler qaoa --backend mpi:world \
        --quiet --json "$OUT" ${BBQMIS_ARGS:-} \
    : --het-group=1 python -m backends.mpi_service serve --backend "${QPU_BACKEND:-aer}" --stats "$STATS"
