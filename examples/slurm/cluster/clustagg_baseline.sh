#!/usr/bin/env bash
#SBATCH --job-name=clustagg-baseline
#SBATCH --partition=cpu --nodes=3 --ntasks-per-node=1
#SBATCH --time=00:30:00
# The baseline mode on the cpu partition, its quantum step offloaded: every rank holds its node
# for the whole run (one base clustering per rank), and each round's quantum step is a Slurm job
# of its own on the quantum partition (--quantum-step qpu-partition, the default inside a job;
# qpu, or the second name of CLUSTAGG_SRUN_PARTITIONS=CPU:QPU), or a HyperQueue job when
# CLUSTAGG_HQ_SERVER_DIR is set (see hq_qpu.sh). The step's --quantum-delay is spent there, not
# on rank 0; round-NNN/selection.json records the job, partition and node it ran on.
#   N_SAMPLES=3000 sbatch examples/slurm/cluster/clustagg_baseline.sh
# Environment: N_SAMPLES (default 3000), MAX_ITER (default 3), QUANTUM_DELAY (seconds per
# quantum step, default 2), OUT (default baseline-<jobid>.json), CLUSTAGG_ARGS (more options of
# python -m clustagg run, e.g. "--quantum-step local" for the old sleep on rank 0).
set -euo pipefail
# shellcheck disable=SC2086  # CLUSTAGG_ARGS is a list of options
srun python -m clustagg run --mode baseline --n-samples "${N_SAMPLES:-3000}" \
    --max-iter "${MAX_ITER:-3}" --quantum-delay "${QUANTUM_DELAY:-2}" --solver exact --quiet \
    --workdir "baseline-$SLURM_JOB_ID" --json "${OUT:-baseline-$SLURM_JOB_ID.json}" ${CLUSTAGG_ARGS:-}
