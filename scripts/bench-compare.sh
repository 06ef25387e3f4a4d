#!/bin/sh
# bench-compare.sh -- two bloomlab binaries timed interleaved: is any loop
# of NEW slower than OLD's?  A speed claim is a ratio measured in one run:
# ROUNDS rounds, each running `bloomlab bench` with OLD then NEW (the order
# alternates round to round), pinned to one core.  The table gives, for
# every (layout, key set, size, operation) both binaries measured, NEW / OLD
# of the least over the rounds (the figure to quote), the median of the
# rounds' own NEW / OLD (paired: a round's two timings are seconds apart, so
# the host's slower swings cancel; the steadier judge of a change on a
# shared host), and each side's spread (max / min - 1), so a ratio inside
# the noise reads as such.  With --peers N the peers section is compared
# too (bench --peers's configurations, as make bench-peers runs them).
#
#   sh scripts/bench-compare.sh OLD_BIN NEW_BIN [bench options...]
#
#   ROUNDS    rounds (default 3)
#   BENCH_CPU the core (default the last one)
#   OUT       also write the per-figure CSV there (default: none)
#
# Examples (a change to the loops, before against after, 16 KiB to 64 MiB;
# the split block at the peers' sizes, 15 rounds):
#   sh scripts/bench-compare.sh /tmp/before/bin/bloomlab bin/bloomlab --max-bytes 64M --ops 2e5
#   ROUNDS=15 sh scripts/bench-compare.sh /tmp/before/bin/bloomlab bin/bloomlab --filter splitblock \
#       --peers 1e6 --hash mulx64
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: sh scripts/bench-compare.sh OLD_BIN NEW_BIN [bench options...]" >&2; exit 2; }
old=$1 new=$2
shift 2
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "bench-compare: $b is not an executable bloomlab" >&2; exit 2; }
done
rounds="${ROUNDS:-3}"
cpu="${BENCH_CPU:-$(($(nproc) - 1))}"
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $cpu"; else echo "bench-compare: no taskset: not pinned" >&2; fi
dir=$(mktemp -d /tmp/bench-compare.XXXXXX)
trap 'rm -rf "$dir"' EXIT INT TERM
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for side in $order; do
    if [ "$side" = old ]; then bin=$old; else bin=$new; fi
    echo "bench-compare: round $round/$rounds: $side ($bin)" >&2
    # shellcheck disable=SC2086 # $pin is a command prefix, split on purpose
    $pin "$bin" bench --quiet "$@" -o "$dir/$side.$round.csv"
  done
done
/usr/bin/python3 scripts/bench_compare.py "$dir" "$rounds" "${OUT:-}"
