#!/usr/bin/env bash
# Install Slurm and MUNGE from Debian packages (idempotent; needs root or sudo).
#   bash examples/slurm/install.sh
set -euo pipefail
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sinfo >/dev/null \
        && command -v munged >/dev/null; then
    echo "slurm and munge already installed: $(dpkg-query -W -f='${Version}' slurm-wlm 2>/dev/null)"
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
echo "installed slurm-wlm $(dpkg-query -W -f='${Version}' slurm-wlm)"
