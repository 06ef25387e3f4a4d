#!/bin/sh
# bench.sh -- `make bench`: throughput against filter size beside the
# machine's own ceiling into results/bench.csv (one tidy CSV; the `section`
# column says ceiling, filter or harness), the printed table into
# results/bench.txt, and the figure plots/bench.png/.svg (plots/bench.gp).
# Comparisons are only what is measured here, now: a filter plugin
# (BENCH_FILTERS="--filter plugin:build/adapters/libbloom.so") is timed
# beside bloomlab's standard layout in the same run (section plugin).
#
#   BENCH_MAX_BYTES   largest filter (default 256M; 2G for the full range)
#   BENCH_OPS         timed operations per figure (default 1e6)
#   BENCH_FILTERS     extra bench options, e.g. --filter plugin:PATH.so (default none)
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
# shellcheck disable=SC2086 # BENCH_FILTERS is options, split on purpose
"$bloomlab" bench --max-bytes "$max" --ops "$ops" ${BENCH_FILTERS:-} -o "$tmp.csv" | tee "$tmp.txt"
mv "$tmp.csv" results/bench.csv
mv "$tmp.txt" results/bench.txt
(cd plots && gnuplot bench.gp)
echo "bench.sh: results/bench.csv, results/bench.txt, plots/bench.png, plots/bench.svg"
