#!/bin/sh
# onekey.sh -- a library user's one-key split block call taken apart
# (scripts/onekey.c says what each way is), in interleaved rounds pinned to
# one core: each round build/onekey's ways, then the peers kit's driver for
# Boost.Bloom's per-key calls on fast_multiblock32<8> at the same bits a key,
# where make bench-peers built it (build/peers-driver-native).  Prints the
# least and the median of each figure over the rounds, ns a key.
#
#   sh scripts/onekey.sh [N [ROUNDS]]     (make onekey N=... ROUNDS=...)
#
# N keys (default 1e6), ROUNDS rounds (default 5); ONEKEY_CPU the core
# (default the last).
set -eu
cd "$(dirname "$0")/.."
n="${1:-1e6}"
rounds="${2:-5}"
cpu="${ONEKEY_CPU:-$(($(nproc) - 1))}"
bin=build/onekey
driver=build/peers-driver-native

bad() { echo "onekey: $1=\"$2\": $3" >&2; exit 2; }
printf '%s' "$n" | grep -Eqx '[0-9]+(\.[0-9]+)?([eE][0-9]+)?' || bad N "$n" "not a key count (1e6, 1000000)"
printf '%s' "$rounds" | grep -Eqx '[1-9][0-9]*' || bad ROUNDS "$rounds" "not a whole number of rounds from 1"
printf '%s' "$cpu" | grep -Eqx '[0-9]+' && [ "$cpu" -lt "$(nproc)" ] ||
  bad ONEKEY_CPU "$cpu" "not a core of this machine (0 to $(($(nproc) - 1)))"
[ -x "$bin" ] || { echo "onekey: $bin not built (make build/onekey)" >&2; exit 2; }
keys=$(/usr/bin/python3 -c "import sys; print(int(float(sys.argv[1])))" "$n")
[ "$keys" -ge 1 ] || bad N "$n" "not a key count from 1"

pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $cpu"; else echo "onekey: no taskset: not pinned"; fi
[ -x "$driver" ] || echo "onekey: no $driver (make bench-peers builds it from the peers kit): Boost's rows left out"

out=$(mktemp /tmp/onekey.XXXXXX)
trap 'rm -f "$out"' EXIT INT TERM
r=1
while [ "$r" -le "$rounds" ]; do
  printf 'onekey: round %s of %s\r' "$r" "$rounds" >&2
  first=$($pin "$bin" "$n")
  case "$first" in *skipped*) echo "$first"; exit 0 ;; esac
  printf '%s\n' "$first" >>"$out"
  if [ -x "$driver" ]; then
    $pin "$driver" "$keys" boost 2>/dev/null | awk -F, '$2 == "fast_multiblock32_8@10.67" { print "boost-per-key", $7, $8, $9 }' >>"$out"
  fi
  r=$((r + 1))
done
echo >&2
echo "# one-key split block calls, n = $n, $rounds rounds pinned to core $cpu: ns a key, insert / absent / present"
/usr/bin/python3 - "$out" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    way, *ns = line.split()
    rows.setdefault(way, []).append([float(x) for x in ns])
def fmt(v):
    return " / ".join("%.2f" % x for x in v)
leasts = {}
for way, v in rows.items():
    least = leasts[way] = [min(t[i] for t in v) for i in range(3)]
    median = [sorted(t[i] for t in v)[len(v) // 2] for i in range(3)]
    print("%-20s least %s   median %s" % (way, fmt(least), fmt(median)))
# The nop way against the same loop without its nops (onekey.c: why an
# instruction costs time here): what one instruction a key costs.
base = "inline-mulx64"
for way in leasts:
    if way.startswith(base + "+") and way.endswith("nop") and base in leasts:
        nops = int(way[len(base) + 1:-3])
        each = [(a - b) / nops for a, b in zip(leasts[way], leasts[base])]
        print("# an instruction a key (%s against %s, least): %s ns" % (way, base, fmt(each)))
PY
