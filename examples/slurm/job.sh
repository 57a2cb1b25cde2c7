#!/usr/bin/env bash
#SBATCH --job-name=vqpu-job
#SBATCH --licenses=vqpu:1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --time=00:10:00
# One hybrid job holding a virtual QPU (a licence, or a GRES with submit.sh's VQPU_RESOURCE=gres)
# while the vQPU server at VQPU_URL multiplexes its circuits with those of the other jobs. Environment:
#   VQPU_URL      server address, e.g. http://127.0.0.1:8765 (required)
#   VQPU_TOKEN    this job's token (unless the server runs in open mode)
#   VQPU_COMMAND  command to run instead of the colouring, e.g.
#                 "python -m backends.vqpu probe --url \$VQPU_URL --shots 100"
#   GRAPH, SHOTS, SLEEP_FACTOR, BBQMIS_ARGS   input of the colouring command (defaults below)
#   VQPU_TIMES    if set, a file to which the job appends one JSON line with its Slurm job id, its
#                 vQPU job name, start and end (epoch seconds) and exit status
set -euo pipefail
: "${VQPU_URL:?set VQPU_URL=http://127.0.0.1:PORT}"
echo "job ${SLURM_JOB_ID:-local} on $(hostname -s) with licences ${SLURM_JOB_LICENSES:-vqpu:1}, vQPU $VQPU_URL"
start=$(date +%s.%N)
status=0
if [ -n "${VQPU_COMMAND:-}" ]; then
    bash -c "$VQPU_COMMAND" || status=$?
else
    # shellcheck disable=SC2086  # BBQMIS_ARGS holds several options
    python -m bbqmis "${GRAPH:?set GRAPH or VQPU_COMMAND}" --backend "vqpu:$VQPU_URL" \
        --shots "${SHOTS:-1000}" --sleep-factor "${SLEEP_FACTOR:-0}" ${BBQMIS_ARGS:-} \
        --json "${OUTPUT_DIR:-.}/bbqmis-${SLURM_JOB_ID:-local}.json" || status=$?
fi
end=$(date +%s.%N)
if [ -n "${VQPU_TIMES:-}" ]; then
    printf '{"slurm_job": "%s", "vqpu_job": "%s", "start": %s, "end": %s, "exit": %d}\n' \
        "${SLURM_JOB_ID:-local}" "${VQPU_JOB_NAME:-${SLURM_JOB_ID:-local}}" "$start" "$end" "$status" \
        >> "$VQPU_TIMES"
fi
exit "$status"
