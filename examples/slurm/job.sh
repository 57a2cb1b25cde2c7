#!/usr/bin/env bash
#SBATCH --job-name=vqpu-job
#SBATCH --licenses=vqpu:1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --time=00:10:00
# One hybrid job holding a virtual QPU (a licence) while the vQPU server at VQPU_URL multiplexes
# its circuits with those of the other jobs. Environment:
#   VQPU_URL      server address, e.g. http://127.0.0.1:8765 (required)
#   VQPU_TOKEN    this job's token (unless the server runs in open mode)
#   VQPU_COMMAND  command to run instead of the colouring, e.g.
#                 "python -m backends.vqpu probe --url \$VQPU_URL --shots 100"
#   GRAPH, SHOTS, SLEEP_FACTOR   input of the colouring command (defaults below)
set -euo pipefail
: "${VQPU_URL:?set VQPU_URL=http://127.0.0.1:PORT}"
echo "job ${SLURM_JOB_ID:-local} on $(hostname -s) with licences ${SLURM_JOB_LICENSES:-vqpu:1}, vQPU $VQPU_URL"
if [ -n "${VQPU_COMMAND:-}" ]; then
    exec bash -c "$VQPU_COMMAND"
fi
exec python -m bbqmis "${GRAPH:?set GRAPH or VQPU_COMMAND}" --backend "vqpu:$VQPU_URL" \
    --shots "${SHOTS:-1000}" --sleep-factor "${SLEEP_FACTOR:-0}" --json "bbqmis-${SLURM_JOB_ID:-local}.json"
