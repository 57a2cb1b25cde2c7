#!/usr/bin/env bash
#SBATCH --job-name=hybrid-chain
#SBATCH --partition=cpu --nodes=1 --ntasks=1
#SBATCH --time=00:30:00
#SBATCH hetjob
#SBATCH --partition=qpu --nodes=1 --ntasks=1
# Method (c): a long hybrid run split into a chain of sub-jobs, one quantum block each.
# Each sub-job is a heterogeneous job like hybrid_world.sh that runs BLOCK more node
# expansions of the colouring (one QAOA batch each) from the checkpoint of the previous
# one; if the colouring is not finished, it submits its successor with
# --dependency=afterok:<this job>, so the QPU is free between sub-jobs and Slurm can give
# it to other users' jobs meanwhile. The chain's result equals the monolithic run's.
#   GRAPH=data/graphs/myciel4.col BLOCK=4 CHAIN_DIR=chain sbatch examples/slurm/cluster/chain_step.sh
# Environment: GRAPH (required); BLOCK (node expansions per sub-job, default 4); CHAIN_DIR
# (checkpoint and results, default chain-<first job id>); QPU_BACKEND (default aer);
# BBQMIS_ARGS (more options of python -m bbqmis, with the same --seed in every sub-job).
# Set by the chain itself: CHAIN_STEP (1, 2, ...). Files: CHAIN_DIR/run.ckpt, step-<k>.json,
# service-<k>.json, and result.json (the last step's result) when the colouring ends.
set -euo pipefail
: "${GRAPH:?set GRAPH to a graph file}"
HERE=${CHAIN_SCRIPT:-$(scontrol show job "$SLURM_JOB_ID" | sed -n 's/^ *Command=\([^ ]*\).*/\1/p' | head -n 1)}
STEP=${CHAIN_STEP:-1}
BLOCK=${BLOCK:-4}
CHAIN_DIR=${CHAIN_DIR:-chain-$SLURM_JOB_ID}
mkdir -p "$CHAIN_DIR"
echo "chain step $STEP of job $SLURM_JOB_ID: node expansions up to $((STEP * BLOCK))"
# shellcheck disable=SC2086  # BBQMIS_ARGS is a list of options
srun --het-group=0 python -m bbqmis "$GRAPH" --executor serial --sampler qaoa --backend mpi:world --quiet \
        --node-limit $((STEP * BLOCK)) --checkpoint "$CHAIN_DIR/run.ckpt" --resume \
        --json "$CHAIN_DIR/step-$STEP.json" ${BBQMIS_ARGS:-} \
    : --het-group=1 python -m backends.mpi_service serve --backend "${QPU_BACKEND:-aer}" \
        --stats "$CHAIN_DIR/service-$STEP.json"
stopped=$(python -c 'import json, sys; print(json.load(open(sys.argv[1]))["stopped"])' "$CHAIN_DIR/step-$STEP.json")
more=no
if [ "$stopped" = "node_limit" ]; then more=yes; fi
bash "$(dirname "$HERE")/chain_next.sh" "$HERE" "$STEP" "$CHAIN_DIR" "$more" "$stopped"
