#!/usr/bin/env bash
#SBATCH --job-name=hq-qpu
#SBATCH --partition=qpu --nodes=1
#SBATCH --time=00:30:00
# A HyperQueue server with one worker on the quantum node, for the clustering workflow's
# quantum step (CLUSTAGG_HQ_SERVER_DIR=DIR). The reference application runs `hq server
# start` and `hq worker start` there; without the hq binary, python -m clustagg.hq_server
# runs both inside this job, so every quantum step submitted to DIR runs on the qpu node.
# DIR must be on a file system the workflow's driver shares; DIR/ready appears once the
# server is up. scancel the job to stop the server.
#   sbatch examples/slurm/cluster/hq_qpu.sh DIR
set -euo pipefail
exec python -m clustagg.hq_server "${1:?usage: hq_qpu.sh SERVER_DIR}" --ready "$1/ready"
