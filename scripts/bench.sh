#!/bin/sh
# bench.sh -- `make bench`: throughput against filter size beside the
# machine's own ceiling, and the published anchors, into results/bench.csv
# (one tidy CSV; the `section` column says ceiling, filter, harness or
# anchor), the printed tables into results/bench.txt, and the figure
# plots/bench.png/.svg (plots/bench.gp).
#
#   BENCH_MAX_BYTES   largest filter (default 256M; 2G for the full range)
#   BENCH_OPS         timed operations per figure (default 1e6)
#   BLOOMLAB          the binary (default bin/bloomlab)
#
# Speed needs a quiet machine: other work on the cores moves every figure.
set -eu
cd "$(dirname "$0")/.."
bloomlab="${BLOOMLAB:-bin/bloomlab}"
max="${BENCH_MAX_BYTES:-256M}"
ops="${BENCH_OPS:-1e6}"
[ -x "$bloomlab" ] || { echo "bench.sh: $bloomlab not built (make build)" >&2; exit 2; }
mkdir -p results
tmp="results/.bench.$$"
trap 'rm -f "$tmp".*' EXIT INT TERM
"$bloomlab" bench --max-bytes "$max" --ops "$ops" -o "$tmp.sizes" | tee "$tmp.txt"
"$bloomlab" bench --anchors --ops "$ops" -o "$tmp.anchors" | tee -a "$tmp.txt"
{ cat "$tmp.sizes"; grep -v '^#' "$tmp.anchors" | tail -n +2; } > "$tmp.csv"
mv "$tmp.csv" results/bench.csv
mv "$tmp.txt" results/bench.txt
(cd plots && gnuplot bench.gp)
echo "bench.sh: results/bench.csv, results/bench.txt, plots/bench.png, plots/bench.svg"
