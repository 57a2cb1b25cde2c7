#!/usr/bin/env bash
#SBATCH --job-name=clustagg-malleable
#SBATCH --partition=cpu --nodes=1
#SBATCH --time=00:30:00
# The malleable mode on a real allocation: the job starts on one node, grows itself to
# 1 + WORKERS nodes before each clustering (salloc --dependency=expand, then scontrol
# update NumNodes=ALL; giving up after CLUSTAGG_GROW_TIMEOUT seconds), starts a worker on each
# added node (an srun step there, joined over MPI ports: clustagg.reconfiguration), and once
# the workers have left shrinks back to one node (scontrol update NodeList=<first node>) for
# the quantum step, which is itself a Slurm job on the quantum partition (--quantum-step
# qpu-partition, the default inside a job; or a HyperQueue job with CLUSTAGG_HQ_SERVER_DIR set),
# so QUANTUM_DELAY is spent there. Needs permit_job_expansion and slurmdbd (see cluster/slurm.conf).
#   N_SAMPLES=3000 sbatch examples/slurm/cluster/clustagg_malleable.sh
# Environment: N_SAMPLES (default 3000), MAX_ITER (default 3), QUANTUM_DELAY (seconds
# per quantum step, default 2), WORKERS (default 2), OUT (default malleable-<jobid>.json),
# CLUSTAGG_ARGS (more options of python -m clustagg run).
set -euo pipefail
# shellcheck disable=SC2086  # CLUSTAGG_ARGS is a list of options
python -m clustagg run --mode malleable --workers "${WORKERS:-2}" --n-samples "${N_SAMPLES:-3000}" \
    --max-iter "${MAX_ITER:-3}" --quantum-delay "${QUANTUM_DELAY:-2}" --solver exact \
    --workdir "malleable-$SLURM_JOB_ID" --json "${OUT:-malleable-$SLURM_JOB_ID.json}" ${CLUSTAGG_ARGS:-}
