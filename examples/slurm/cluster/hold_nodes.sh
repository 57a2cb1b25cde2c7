#!/usr/bin/env bash
#SBATCH --job-name=hold-nodes
#SBATCH --partition=cpu
#SBATCH --time=00:10:00
# Another user's job: holds its nodes for HOLD seconds (default 600) doing nothing.
#   sbatch --nodes=2 examples/slurm/cluster/hold_nodes.sh
sleep "${HOLD:-600}"
