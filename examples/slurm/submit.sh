#!/usr/bin/env bash
# Submit N vQPU jobs (job.sh, each holding one vqpu licence) and print their job ids, one a line.
#   bash examples/slurm/submit.sh N URL [TOKEN_FILE]
# With TOKEN_FILE, each job gets its own fresh token, appended to the file as 'name token user'
# (the server re-reads the file when it changes; the user billed is $USER), passed to the job as
# VQPU_TOKEN, and the token's name becomes the Slurm job name and VQPU_JOB_NAME.
# VQPU_RESOURCE=gres asks for the GRES vqpu:1 instead of the licence (a Slurm with
# GresTypes=vqpu, see slurm.conf). The job's command comes from VQPU_COMMAND, GRAPH, SHOTS,
# SLEEP_FACTOR, BBQMIS_ARGS (see job.sh); OUTPUT_DIR (default .) receives the job outputs
# vqpu-<jobid>.out. Needs SLURM_CONF (start.sh's env).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
N=${1:?usage: submit.sh N URL [TOKEN_FILE]}
export VQPU_URL=${2:?usage: submit.sh N URL [TOKEN_FILE]}
TOKEN_FILE=${3:-}
export OUTPUT_DIR=${OUTPUT_DIR:-.}
mkdir -p "$OUTPUT_DIR"
resource=(--licenses=vqpu:1)
if [ "${VQPU_RESOURCE:-licenses}" = gres ]; then
    resource=(--licenses= --gres=vqpu:1)
fi
for i in $(seq "$N"); do
    name=(--job-name=vqpu-job)
    if [ -n "$TOKEN_FILE" ]; then
        VQPU_JOB_NAME="slurm-$(date +%s)-$i-$RANDOM"
        VQPU_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
        echo "$VQPU_JOB_NAME $VQPU_TOKEN ${USER:-$(id -un)}" >> "$TOKEN_FILE"
        export VQPU_TOKEN VQPU_JOB_NAME
        name=(--job-name="$VQPU_JOB_NAME")
    fi
    sbatch --parsable "${name[@]}" "${resource[@]}" --output="$OUTPUT_DIR/vqpu-%j.out" "$HERE/job.sh"
done
