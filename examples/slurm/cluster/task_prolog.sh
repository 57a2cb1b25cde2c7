#!/usr/bin/env bash
# Slurm's TaskProlog for the emulated cluster: each "export NAME=VALUE" line it prints is
# set in the task's environment.
# The pip MPICH's default network module (UCX) publishes an address of several kilobytes
# through PMI at MPI start-up; Slurm 22.05's PMI-1 server reads each request in one
# 1024-byte read, so a long request is cut, MPI_Init aborts on one rank and the others hang.
# OFI's address fits in one short request. A value the user has set is kept.
if [ -z "${MPIR_CVAR_CH4_NETMOD:-}" ]; then
    echo "export MPIR_CVAR_CH4_NETMOD=ofi"
fi
