#!/bin/sh
# bench-peers.sh -- `make bench-peers`: bloomlab against the peer filters of
# the measuring kit (../shared/peers: fastfilter_cpp, Boost.Bloom), in one
# run on this machine, into results/peers.csv and plots/peers.png.
#
# A speed claim is a ratio measured in one run: ROUNDS interleaved rounds
# (for each n: bloomlab at every vector level this CPU has, then the kit's
# driver built with -march=native, then built for the x86-64 baseline, the
# peers "without vector extensions" the portable loops are held to), all
# pinned to one core; each figure is the minimum over the rounds, its
# spread (max / min - 1) beside it, and in peers_targets.md the rounds in
# which it met the target its own round's peers set (build/peers-rounds.csv
# holds every round).  The kit is optional: a clone without it is told so,
# and nothing fails.
#
#   PEERS_KIT     the kit (default ../shared/peers)
#   PEERS_N       the n's (default "1e6 1e7 1e8")
#   PEERS_ROUNDS  rounds (default 3)
#   PEERS_CPU     the core (default the last one)
#   PEERS_OPS     bloomlab's queries per figure (default 1e6, the driver's)
#   PEERS_ONLY    the driver's systems, joined by + (fastfilter, boost,
#                 libbloom or all; default fastfilter+boost: libbloom comes
#                 in through the plugin path instead)
#   PEERS_HASHES  bloomlab's hashes (default "xxh3_64 mulx64": xxh3_64 is
#                 what bloomlab's results use; mulx64 is Boost.Bloom's own
#                 mix of an integer key, for a hash-for-hash comparison)
#   PEERS_LEVELS  bloomlab's vector levels (default every level this CPU
#                 has: portable, avx2, avx512); a level the CPU lacks is
#                 said and left out
#   PEERS_OUT     where peers.csv and peers_targets.md go (default results;
#                 plots/peers.png is drawn from results/ alone)
#   BLOOMLAB      the binary (default bin/bloomlab)
#
# A focused run, one level and hash against Boost.Bloom, 10 rounds, its
# table in build/ and results/ untouched:
#   PEERS_N="1e6 1e7" PEERS_ROUNDS=10 PEERS_LEVELS=avx2 PEERS_HASHES=mulx64 \
#     PEERS_ONLY=boost PEERS_OUT=build/peers-focus make bench-peers
#
# A setting that cannot be read is one line on stderr naming it, exit 2,
# and nothing written.
set -eu
cd "$(dirname "$0")/.."
kit="${PEERS_KIT:-../shared/peers}"
ns="${PEERS_N:-1e6 1e7 1e8}"
rounds="${PEERS_ROUNDS:-3}"
cpu="${PEERS_CPU:-$(($(nproc) - 1))}"
ops="${PEERS_OPS:-1e6}"
only="${PEERS_ONLY:-fastfilter+boost}"
hashes="${PEERS_HASHES:-xxh3_64 mulx64}"
bloomlab="${BLOOMLAB:-bin/bloomlab}"
levels_asked="${PEERS_LEVELS:-}"
out_dir="${PEERS_OUT:-results}"

# A setting that cannot be read: one line naming it, exit 2.
bad() { echo "bench-peers: $1=\"$2\": $3" >&2; exit 2; }
count_ok() { printf '%s' "$1" | grep -Eqx '[1-9][0-9]*'; }
number_ok() { printf '%s' "$1" | grep -Eqx '[0-9]+(\.[0-9]+)?([eE][0-9]+)?'; }
count_ok "$rounds" || bad PEERS_ROUNDS "$rounds" "not a whole number of rounds from 1"
if ! { printf '%s' "$cpu" | grep -Eqx '[0-9]+' && [ "$cpu" -lt "$(nproc)" ]; }; then
  bad PEERS_CPU "$cpu" "not a core of this machine (0 to $(($(nproc) - 1)))"
fi
number_ok "$ops" || bad PEERS_OPS "$ops" "not a count (such as 1e6)"
[ -n "$(printf '%s' "$ns" | tr -d ' ')" ] || bad PEERS_N "$ns" "no n given"
for n in $ns; do
  if ! { number_ok "$n" && awk -v n="$n" 'BEGIN { exit !(n >= 1000 && n <= 2 ^ 36) }'; }; then
    bad PEERS_N "$ns" "$n is not a count from 1000 to 2^36 (such as 1e6)"
  fi
done
for level in $levels_asked; do
  case "$level" in
    portable | avx2 | avx512) ;;
    *) bad PEERS_LEVELS "$levels_asked" "$level is not a vector level (portable, avx2, avx512)" ;;
  esac
done
for system in $(printf '%s' "$only" | tr '+,' '  '); do
  case "$system" in
    all | fastfilter | boost | libbloom) ;;
    *) bad PEERS_ONLY "$only" "$system is not one of the kit's systems (fastfilter, boost, libbloom, all)" ;;
  esac
done
[ -n "$(printf '%s' "$only" | tr -d ' +,')" ] || bad PEERS_ONLY "$only" "no system given"
[ -n "$(printf '%s' "$hashes" | tr -d ' ')" ] || bad PEERS_HASHES "$hashes" "no hash given"
[ ! -e "$out_dir" ] || [ -d "$out_dir" ] || bad PEERS_OUT "$out_dir" "not a directory"
[ -x "$bloomlab" ] || { echo "bench-peers: $bloomlab not built (make build)" >&2; exit 2; }
known_hashes=$("$bloomlab" list | awk '/^hashes/ { on = 1; next } /^[^ ]/ { on = 0 } on { print $1 }')
for hash in $hashes; do
  case "$hash" in plugin:*) continue ;; esac # a user's hash: bloomlab reads it
  printf '%s\n' "$known_hashes" | grep -Fqx -- "$hash" ||
    bad PEERS_HASHES "$hashes" "$hash is not a hash of $bloomlab (bloomlab list)"
done

if [ ! -f "$kit/build.sh" ] || [ ! -f "$kit/driver.cc" ]; then
  echo "bench-peers: no peers kit at $kit (the project's measuring kit, not part of a clone): skipped"
  exit 0
fi
if ! command -v g++ >/dev/null 2>&1; then
  echo "bench-peers: the peers kit needs g++ (and libbloom-dev): skipped"
  exit 0
fi
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $cpu"; else echo "bench-peers: no taskset: not pinned"; fi

mkdir -p build "$out_dir"
native=build/peers-driver-native
baseline=build/peers-driver-x86-64
echo "bench-peers: building the kit's driver ($kit/build.sh), native and x86-64"
if ! sh "$kit/build.sh" "$native" >build/peers-build.log 2>&1; then
  echo "bench-peers: the kit's driver did not build (it needs g++ and libbloom-dev; build/peers-build.log): skipped"
  exit 0
fi
# The same build for the x86-64 baseline (the kit's line, -march changed),
# the peers the portable loops are held to.  fastfilter declares its
# SimdBlockFilterFixed only under __AVX2__: a copy of the driver with those
# blocks under #ifdef __AVX2__ (scripts/peers_baseline.py) builds there,
# without that one peer.
builds="native"
out="$(pwd)/$baseline"
patched="$(pwd)/build/peers-driver-x86-64.cc"
if /usr/bin/python3 scripts/peers_baseline.py "$kit/driver.cc" "$patched" >>build/peers-build.log 2>&1 &&
   (cd "$kit" && sed -e 's/-march=native/-march=x86-64/' -e "s|\"\$HERE/driver.cc\"|\"$patched\"|" build.sh | sh -s "$out") \
     >>build/peers-build.log 2>&1; then
  builds="native x86-64"
else
  echo "bench-peers: the kit's driver does not build for -march=x86-64 (build/peers-build.log): native peers only"
fi

# The vector levels this CPU has, from portable up.
cpu_level=$("$bloomlab" --version | sed -n 's/.*this CPU: \([a-z0-9]*\).*/\1/p')
levels="portable"
case "$cpu_level" in
  avx2) levels="portable avx2" ;;
  avx512) levels="portable avx2 avx512" ;;
esac
if [ -n "$levels_asked" ]; then
  kept=""
  for level in $levels_asked; do
    case " $levels " in
      *" $level "*) kept="$kept $level" ;;
      *) echo "bench-peers: this CPU has no $level level (it has: $levels): left out" ;;
    esac
  done
  levels="${kept# }"
  [ -n "$levels" ] || { echo "bench-peers: none of PEERS_LEVELS ($levels_asked) runs on this CPU: nothing to measure"; exit 0; }
fi

raw="build/peers-raw.csv"
: > "$raw"
echo "bench-peers: levels: $levels; peers: $builds; n: $ns; $rounds rounds pinned to core $cpu"
for round in $(seq 1 "$rounds"); do
  for n in $ns; do
    for isa in $levels; do
      for hash in $hashes; do
        echo "bench-peers: round $round n=$n bloomlab $isa $hash"
        BLOOMLAB_ISA=$isa $pin "$bloomlab" bench --peers "$n" --hash "$hash" --ops "$ops" --quiet -o build/peers-bloomlab.csv
        grep -v '^#' build/peers-bloomlab.csv | tail -n +2 | sed "s/^/$round,bloomlab,$isa,/" >> "$raw"
      done
    done
    for build in $builds; do
      echo "bench-peers: round $round n=$n peers ($build)"
      $pin "build/peers-driver-$build" "$n" "$only" 2>/dev/null | sed "s/^/$round,peers,$build,/" >> "$raw"
    done
  done
done
grep -v '^#' build/peers-bloomlab.csv | head -n 1 > build/peers-bloomlab-header.csv
counters=$(sed -n 's/^# counters: //p' build/peers-bloomlab.csv | head -n 1)
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
/usr/bin/python3 scripts/peers.py "$raw" build/peers-bloomlab-header.csv "$model" "$levels" "$rounds" "$cpu" \
  "$("$bloomlab" --version | head -n 1)" "$kit" "$pin" "$builds" "$counters" build/peers-rounds.csv \
  > "$out_dir/peers.csv.tmp"
/usr/bin/python3 scripts/peers_targets.py "$out_dir/peers.csv.tmp" "$out_dir/peers.csv" build/peers-rounds.csv \
  > "$out_dir/peers_targets.md.tmp"
mv "$out_dir/peers.csv.tmp" "$out_dir/peers.csv"
mv "$out_dir/peers_targets.md.tmp" "$out_dir/peers_targets.md"
if [ "$out_dir" = results ]; then
  (cd plots && gnuplot peers.gp)
  echo "bench-peers: results/peers.csv, plots/peers.png, results/peers_targets.md (each figure against issue 23's target)"
else
  echo "bench-peers: $out_dir/peers.csv, $out_dir/peers_targets.md (each figure against issue 23's target; plots/peers.png is drawn from results/ alone)"
fi
# The done-when's verdict, as peers_targets.md's section counts it.
sed -n "s/^The done-when's figures met/bench-peers: the done-when's figures met/p" "$out_dir/peers_targets.md"
