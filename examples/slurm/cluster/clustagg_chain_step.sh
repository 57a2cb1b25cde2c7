#!/usr/bin/env bash
#SBATCH --job-name=clustagg-chain
#SBATCH --partition=cpu --nodes=3 --ntasks=3
#SBATCH --time=00:30:00
#SBATCH hetjob
#SBATCH --partition=qpu --nodes=1 --ntasks=1
# Method (c) for clustering aggregation: the loop split into a chain of sub-jobs, one round
# (one quantum block) each. Each sub-job is a heterogeneous job: the round's clustering
# (one MPI rank per node) and scoring run on component 0 (partition cpu), its quantum step
# on component 1 (partition qpu), as job steps (CLUSTAGG_SRUN_HETJOB=1). The rounds live in
# CHAIN_DIR/rounds, so each sub-job continues from the previous one's files; if the loop is
# not finished, the sub-job submits its successor with --dependency=afterok:<this job>, so
# the QPU is free between rounds. The chain's result equals the one-process run's.
#   python -m clustagg generate --n-samples 3000 --out points.csv
#   POINTS=points.csv MAX_ITER=3 CHAIN_DIR=chain sbatch examples/slurm/cluster/clustagg_chain_step.sh
# Environment: POINTS (required); MAX_ITER (default 10); THRESHOLD (default 0.8); CHAIN_DIR
# (default chain-<first job id>); CLUSTAGG_ARGS (more options of python -m clustagg workflow,
# the same in every sub-job, e.g. "--seed 3 --solver exact").
# Set by the chain itself: CHAIN_STEP (1, 2, ...). Files: CHAIN_DIR/rounds/, step-<k>.json,
# jobs (the successors' job ids), and result.json (the last step's result) when the loop ends.
set -euo pipefail
: "${POINTS:?set POINTS to a points file}"
HERE=${CHAIN_SCRIPT:-$(scontrol show job "$SLURM_JOB_ID" | sed -n 's/^ *Command=\([^ ]*\).*/\1/p' | head -n 1)}
STEP=${CHAIN_STEP:-1}
MAX_ITER=${MAX_ITER:-10}
THRESHOLD=${THRESHOLD:-0.8}
CHAIN_DIR=${CHAIN_DIR:-chain-$SLURM_JOB_ID}
mkdir -p "$CHAIN_DIR"
echo "chain step $STEP of job $SLURM_JOB_ID: round $STEP of at most $MAX_ITER"
# shellcheck disable=SC2086  # CLUSTAGG_ARGS is a list of options
CLUSTAGG_SRUN_HETJOB=1 python -m clustagg workflow --points "$POINTS" --quiet \
    --cluster-processes "${SLURM_JOB_NUM_NODES_HET_GROUP_0:-3}" --threshold "$THRESHOLD" \
    --max-iter "$STEP" --workdir "$CHAIN_DIR/rounds" --json "$CHAIN_DIR/step-$STEP.json" ${CLUSTAGG_ARGS:-}
last=$(python -c 'import json, sys; print(json.load(open(sys.argv[1]))["iterations"][-1])' "$CHAIN_DIR/step-$STEP.json")
more=no
if [ "$STEP" -lt "$MAX_ITER" ] && python -c 'import sys; sys.exit(float(sys.argv[1]) > float(sys.argv[2]))' "$last" "$THRESHOLD"; then
    more=yes
fi
bash "$(dirname "$HERE")/chain_next.sh" "$HERE" "$STEP" "$CHAIN_DIR" "$more" \
    "silhouette $last, threshold $THRESHOLD, at most $MAX_ITER rounds"
