#!/usr/bin/env bash
# Install Slurm and MUNGE from Debian packages, with slurmdbd and the MariaDB server that
# stores its job records, and openssl for the vQPU's throw-away CA (make_tls.sh)
# (idempotent; needs root or sudo). The emulated cluster
# (cluster/start.sh) runs its own MariaDB and slurmdbd in its state directory: Slurm 22.05
# resizes a running job more than once only when an accounting database indexes it.
#   bash examples/slurm/install.sh
set -euo pipefail
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sinfo >/dev/null \
        && command -v munged >/dev/null && command -v slurmdbd >/dev/null \
        && command -v mariadbd >/dev/null && command -v openssl >/dev/null; then
    echo "slurm and munge already installed: $(dpkg-query -W -f='${Version}' slurm-wlm 2>/dev/null)"
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends slurm-wlm munge \
    slurmdbd mariadb-server-core openssl >/dev/null
echo "installed slurm-wlm $(dpkg-query -W -f='${Version}' slurm-wlm)"
