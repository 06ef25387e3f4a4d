#!/bin/sh
# deps.sh -- install the Debian packages one part of bloomlab needs, only
# when one is missing.
#
#   sh scripts/deps.sh            the build, the experiments and the tests
#                                 (called by `make` and `make test` first)
#   sh scripts/deps.sh slurm      make test-slurm: Slurm's controller, node
#                                 daemon and client commands, and MUNGE
#   sh scripts/deps.sh browser    make report-check: chromium, a large
#                                 download the build and the tests never need
#
# When every package is present this costs one dpkg-query, no apt call.  As
# root it runs apt-get; otherwise through sudo when that works without a
# password; otherwise it prints the one command to run and exits 2.  Another
# apt or dpkg run holding the lock (another session's deps.sh) is waited for
# (apt's DPkg::Lock::Timeout), and a failed attempt is retried, 5 tries in
# all.  Nothing is configured or started here.
set -eu

SET=${1:-build}
case "$SET" in
    build)
        PACKAGES="gcc make pkg-config libxxhash-dev libmurmurhash-dev libinih-dev \
libcriterion-dev gnuplot-nox wamerican python3 python3-mpmath python3-numpy \
libglib2.0-dev parallel zlib1g-dev g++ libbloom-dev libleveldb-dev"
        # g++, libbloom-dev and libleveldb-dev: the adapters (adapters/), real
        # libraries measured as filter plugins; the Makefile skips an adapter
        # whose header is absent, so a system without them still builds.
        # `make CC=clang`: Debian's clang, and LLVM's OpenMP runtime for -fopenmp.
        case "$(basename "${CC:-gcc}" | cut -d' ' -f1)" in
            clang*) PACKAGES="$PACKAGES clang libomp-dev" ;;
        esac
        NEEDS="bloomlab needs the equivalents of: $PACKAGES" ;;
    slurm)
        PACKAGES="slurmctld slurmd slurm-client munge"
        NEEDS="make test-slurm needs Slurm (slurmctld, slurmd, sbatch, sinfo, squeue, scontrol) and MUNGE (munged, mungekey)" ;;
    browser)
        PACKAGES="chromium"
        NEEDS="make report-check needs chromium (or set CHROMIUM=path)" ;;
    *)
        echo "deps.sh: unknown package set '$SET' (build, slurm, browser)" >&2
        exit 2 ;;
esac

# Not Debian: say what is needed and let the build (or the check) find out.
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps.sh: not a Debian system (no dpkg-query); $NEEDS" >&2
    exit 0
fi

missing=""
for p in $PACKAGES; do
    case "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0

echo "deps.sh: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "deps.sh: missing packages; run: sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
install_once() {
    $SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq &&
        $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $missing >&2
}
tries=0
until install_once; do
    tries=$((tries + 1))
    if [ "$tries" -ge 5 ]; then
        echo "deps.sh: apt-get failed $tries times; install by hand:$missing" >&2
        exit 1
    fi
    echo "deps.sh: apt-get failed (another apt/dpkg run holding the lock?); retrying in 15 s" >&2
    sleep 15
done
