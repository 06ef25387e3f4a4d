#!/bin/sh
# deps-browser.sh -- install Debian's chromium for `make report-check`, only
# when it is missing.  Kept apart from deps.sh: a browser is a large download
# that the build and the tests never need.
#
# As root it runs apt-get; otherwise through sudo when that works without a
# password; otherwise it prints the one command to run and exits 2.  Another
# apt-get (another session's deps.sh) may hold the dpkg lock for a while:
# apt waits for it (DPkg::Lock::Timeout), and a failed attempt is retried.
set -eu

PACKAGES="chromium"

if ! command -v dpkg-query >/dev/null 2>&1; then
    command -v chromium >/dev/null 2>&1 && exit 0
    echo "deps-browser.sh: not a Debian system; install chromium (or set CHROMIUM=path)" >&2
    exit 2
fi

missing=""
for p in $PACKAGES; do
    case "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0

echo "deps-browser.sh: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "deps-browser.sh: missing packages; run: sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
LOCK="-o DPkg::Lock::Timeout=300"
tries=0
# shellcheck disable=SC2086
until $SUDO apt-get $LOCK update -qq && $SUDO apt-get $LOCK install -y -qq --no-install-recommends $missing >&2; do
    tries=$((tries + 1))
    [ "$tries" -lt 5 ] || { echo "deps-browser.sh: apt-get failed $tries times; giving up" >&2; exit 1; }
    echo "deps-browser.sh: apt-get failed (another apt may hold its lock); retrying in 20 s" >&2
    sleep 20
done
