#!/bin/sh
# deps.sh -- install the Debian packages bloomlab needs, only when one is missing.
#
# Called by `make` and `make test` before anything is built.  When every
# package is present this costs one dpkg-query, no apt call.  As root it
# runs apt-get; otherwise through sudo when that works without a password;
# otherwise it prints the one command to run and exits 2.
set -eu

PACKAGES="gcc make pkg-config libxxhash-dev libmurmurhash-dev libinih-dev \
libcriterion-dev gnuplot-nox wamerican python3 python3-mpmath python3-numpy \
libglib2.0-dev parallel zlib1g-dev"

# `make CC=clang`: Debian's clang, and LLVM's OpenMP runtime for -fopenmp.
case "$(basename "${CC:-gcc}" | cut -d' ' -f1)" in
    clang*) PACKAGES="$PACKAGES clang libomp-dev" ;;
esac

# Not Debian: say what is needed and let the build find out.
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps.sh: not a Debian system (no dpkg-query); bloomlab needs the equivalents of:" >&2
    echo "deps.sh:   $PACKAGES" >&2
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
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
