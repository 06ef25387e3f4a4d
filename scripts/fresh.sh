#!/bin/sh
# fresh.sh -- is a committed figure or report current?  By content, not by
# timestamps: a fresh clone's timestamps are checkout order, and a binary
# rebuilt with the same results changes nothing a figure is drawn from.
#
#   fresh.sh check  STAMP INPUT...   exit 0 when STAMP holds the digest of
#                                    the INPUTs (names and bytes), else 1
#   fresh.sh record STAMP INPUT...   write that digest to STAMP
#
# The Makefile redraws a figure (plots/NAME.inputs) or rewrites the report
# (results/REPORT.inputs) only when check fails, then records.
set -eu
usage() { echo "usage: fresh.sh check|record STAMP INPUT..." >&2; exit 2; }
[ $# -ge 3 ] || usage
mode=$1 stamp=$2
shift 2

digest() {
    for f in "$@"; do
        [ -f "$f" ] || { echo "fresh.sh: $f: no such file" >&2; exit 2; }
        printf '%s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$f"
    done | sha256sum | cut -d' ' -f1
}

now=$(digest "$@")
case "$mode" in
    check) [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$now" ] ;;
    record)
        printf '%s\n' "$now" > "$stamp.tmp" || { echo "fresh.sh: cannot write $stamp.tmp" >&2; exit 1; }
        mv "$stamp.tmp" "$stamp" || { echo "fresh.sh: cannot write $stamp" >&2; exit 1; }
        ;;
    *) usage ;;
esac
