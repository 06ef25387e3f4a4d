#!/bin/sh
# deps-slurm.sh -- install the Debian packages `make test-slurm` needs
# (Slurm's controller, node daemon and client commands, and MUNGE), only
# when one is missing.
#
# Like deps.sh: when every package is present this costs one dpkg-query; as
# root it runs apt-get, otherwise through sudo when that works without a
# password, otherwise it prints the one command to run and exits 2.  Another
# apt or dpkg run holding the lock is waited for (apt's own lock timeout,
# then a few retries), not treated as a failure.  Nothing is configured or
# started here: scripts/test-slurm.sh runs the daemons from a temporary
# directory of its own.
set -eu

PACKAGES="slurmctld slurmd slurm-client munge"

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps-slurm.sh: not a Debian system (no dpkg-query); make test-slurm needs Slurm" >&2
    echo "deps-slurm.sh: (slurmctld, slurmd, sbatch, sinfo, squeue, scontrol) and MUNGE (munged, mungekey)" >&2
    exit 0
fi

missing=""
for p in $PACKAGES; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0

echo "deps-slurm.sh: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "deps-slurm.sh: missing packages; run: sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
# apt waits up to 120 s for the dpkg lock another run holds
# (DPkg::Lock::Timeout); any other failure -- a lock it does not wait for,
# a mirror's hiccup -- is retried, 5 tries in all.
# shellcheck disable=SC2086
install_once() {
    $SUDO apt-get -o DPkg::Lock::Timeout=120 update -qq &&
        $SUDO apt-get -o DPkg::Lock::Timeout=120 install -y -qq --no-install-recommends $missing >&2
}
tries=0
until install_once; do
    tries=$((tries + 1))
    if [ $tries -ge 5 ]; then
        echo "deps-slurm.sh: apt-get failed $tries times; install by hand:$missing" >&2
        exit 1
    fi
    echo "deps-slurm.sh: apt-get failed (another apt/dpkg run holding the lock?); retrying in 15 s" >&2
    sleep 15
done
