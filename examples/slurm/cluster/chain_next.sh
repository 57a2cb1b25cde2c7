#!/usr/bin/env bash
# The end of one sub-job of a chain (chain_step.sh, clustagg_chain_step.sh):
#   bash chain_next.sh SCRIPT STEP CHAIN_DIR yes|no WHY
# yes: submit SCRIPT again as step STEP + 1, to start once this job (SLURM_JOB_ID) has
# succeeded, and append its job id to CHAIN_DIR/jobs; no: the chain ends here and
# CHAIN_DIR/step-STEP.json becomes CHAIN_DIR/result.json. WHY goes into the message.
set -euo pipefail
SCRIPT=$1 STEP=$2 CHAIN_DIR=$3 MORE=$4 WHY=$5
if [ "$MORE" = yes ]; then
    next=$(CHAIN_STEP=$((STEP + 1)) CHAIN_DIR=$CHAIN_DIR CHAIN_SCRIPT=$SCRIPT \
        sbatch --parsable --dependency="afterok:$SLURM_JOB_ID" --export=ALL "$SCRIPT")
    echo "submitted step $((STEP + 1)) as job $next ($WHY)"
    echo "$next" >> "$CHAIN_DIR/jobs"
else
    cp "$CHAIN_DIR/step-$STEP.json" "$CHAIN_DIR/result.json"
    echo "chain finished at step $STEP ($WHY)"
fi
