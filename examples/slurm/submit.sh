#!/usr/bin/env bash
# Submit N vQPU jobs (job.sh, each holding one vqpu licence) and print their job ids, one a line.
#   bash examples/slurm/submit.sh N URL [TOKEN_FILE]
# With TOKEN_FILE, each job gets its own fresh token, appended to the file as 'name token'
# (the server re-reads the file when it changes) and passed to the job as VQPU_TOKEN.
# The job's command comes from VQPU_COMMAND, GRAPH, SHOTS, SLEEP_FACTOR (see job.sh);
# OUTPUT_DIR (default .) receives the job outputs vqpu-<jobid>.out. Needs SLURM_CONF (start.sh's env).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
N=${1:?usage: submit.sh N URL [TOKEN_FILE]}
export VQPU_URL=${2:?usage: submit.sh N URL [TOKEN_FILE]}
TOKEN_FILE=${3:-}
OUTPUT_DIR=${OUTPUT_DIR:-.}
mkdir -p "$OUTPUT_DIR"
for i in $(seq "$N"); do
    if [ -n "$TOKEN_FILE" ]; then
        name="slurm-$(date +%s)-$i-$RANDOM"
        VQPU_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
        echo "$name $VQPU_TOKEN" >> "$TOKEN_FILE"
        export VQPU_TOKEN
    fi
    sbatch --parsable --output="$OUTPUT_DIR/vqpu-%j.out" "$HERE/job.sh"
done
