#!/bin/sh
# loopcount.sh -- instructions per insert and per query of every layout's
# batch loops at every vector level this CPU has, counted by valgrind's
# callgrind: deterministic, so a noise-free cross-check of a loop change on
# a shared host (a timing needs a quiet machine; a count does not).
#
#   sh scripts/loopcount.sh [NEW_LOOPCOUNT [OLD_LOOPCOUNT]]
#
# NEW_LOOPCOUNT defaults to build/loopcount (make build/loopcount); with
# OLD_LOOPCOUNT (another tree's build/loopcount) each count is set beside
# the old one with new / old.  Each run: n = LOOPCOUNT_N keys (default 1e6)
# inserted, then as many absent and as many present keys asked, xxh3_64 on
# random 8-byte keys, double hashing (scripts/loopcount.c); the insert count
# is the inclusive cost of the outermost insert_many_* over n, the query
# count that of query_many_* over the 2n queries.  Hashing is inside both;
# making the keys is not.
set -eu
cd "$(dirname "$0")/.."
new="${1:-build/loopcount}"
old="${2:-}"
n="${LOOPCOUNT_N:-1e6}"
command -v valgrind >/dev/null 2>&1 || { echo "loopcount.sh: valgrind not installed (apt-get install valgrind): skipped"; exit 0; }
[ -x "$new" ] || { echo "loopcount.sh: $new not built (make build/loopcount)" >&2; exit 2; }
[ -z "$old" ] || [ -x "$old" ] || { echo "loopcount.sh: $old is not executable" >&2; exit 2; }
levels="portable"
case "$(bin/bloomlab --version 2>/dev/null | sed -n 's/.*this CPU: \([a-z0-9]*\).*/\1/p')" in
  avx2) levels="portable avx2" ;;
  avx512) levels="portable avx2 avx512" ;;
esac
dir=$(mktemp -d /tmp/loopcount.XXXXXX)
trap 'rm -rf "$dir"' EXIT INT TERM
# valgrind's CPU reports its own L2 (256 KiB) and family, by which the
# loops would be chosen for another machine: this one's, asked natively,
# go to loopcount (scripts/loopcount.c).
l2=$(getconf LEVEL2_CACHE_SIZE 2>/dev/null || true)
case "$l2" in ''|*[!0-9]*|0) l2="" ;; esac
plan=$("$new" splitblock 1000 10.67 8 0 2>/dev/null | sed -n 's/.*, fetch plan \([a-z]*\)$/\1/p')
case "$plan" in window|ahead) ;; *) plan="" ;; esac
export LOOPCOUNT_L2_BYTES="$l2" LOOPCOUNT_PLAN="$plan"
echo "# loops chosen as this machine chooses them (L2 ${l2:-as valgrind says} bytes, fetch plan" \
  "${plan:-as valgrind says}); a loopcount built before this setting chooses by valgrind's CPU"

# per_op BIN LAYOUT ISA: "instructions-an-insert instructions-a-query"
per_op() {
  case $2 in splitblock) bpk=10.67 k=8 ;; *) bpk=10 k=7 ;; esac
  BLOOMLAB_ISA=$3 valgrind --tool=callgrind --callgrind-out-file="$dir/out" "$1" "$2" "$n" "$bpk" "$k" "$n" \
    >/dev/null 2>&1
  callgrind_annotate --inclusive=yes --threshold=100 "$dir/out" > "$dir/annotated" 2>/dev/null
  /usr/bin/python3 - "$dir/annotated" "$n" <<'PY'
import re, sys
text, n = open(sys.argv[1]).read(), float(sys.argv[2])
def outermost(prefix):
    # the largest inclusive count of a function of that name: the outermost,
    # whose count holds the nested ones' (a .part or .isra clone included)
    counts = [int(m.group(1).replace(",", "")) for m in
              re.finditer(r"^\s*([\d,]+) .*?\b%s[a-z0-9_]+" % prefix, text, re.M)]
    return max(counts) if counts else float("nan")
print("%.1f %.1f" % (outermost("insert_many_") / n, outermost("query_many_") / (2 * n)))
PY
}

printf '%-12s %-9s %16s' layout level "insert / query"
[ -z "$old" ] || printf ' %16s %15s' "old" "new / old"
printf '\n'
for layout in standard counting partitioned blocked512 register64 splitblock; do
  for isa in $levels; do
    set -- $(per_op "$new" "$layout" "$isa")
    printf '%-12s %-9s %7s / %6s' "$layout" "$isa" "$1" "$2"
    if [ -n "$old" ]; then
      ins=$1 qry=$2
      set -- $(per_op "$old" "$layout" "$isa")
      printf ' %7s / %6s %6s / %6s' "$1" "$2" "$(echo "$ins $1" | awk '{printf "%.3f", $1/$2}')" \
        "$(echo "$qry $2" | awk '{printf "%.3f", $1/$2}')"
    fi
    printf '\n'
  done
done
