#!/bin/sh
# sweep-parallel.sh -- one experiment spread over cores or hosts with GNU
# parallel: `bloomlab run --shard I/N` for I = 1..N, then `bloomlab merge`.
#
# usage: scripts/sweep-parallel.sh [options] EXPERIMENT.ini OUTPUT.csv
#
#   -n, --shards N       shards (default: the number of cores)
#   -j, --jobs J         shards at once per host (default: parallel's, one a core)
#   -t, --threads T      OpenMP threads in each shard (default 1)
#   -S, --sshlogin L     run on host L (repeatable; passed to parallel as
#                        --sshlogin L, ":" is this machine).  The hosts must
#                        see this directory at the same path (a shared file
#                        system) and have bloomlab at the same path; with
#                        --transfer they need only bloomlab.
#       --transfer       send the experiment file to each host and bring the
#                        shard CSV back (parallel --transferfile/--return)
#       --scale S        quick or full (passed to bloomlab run)
#       --bloomlab PATH  the binary (default: $BLOOMLAB or bin/bloomlab)
#       --keep DIR       keep the shard CSVs in DIR (default: a temporary
#                        directory beside OUTPUT, removed after the merge)
#       --dry-run        print the commands instead of running them
#
# The merged file equals the unsharded run's, row for row, except the ns_*
# columns and the metadata lines that say when and how it ran (merge.c).
set -eu

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "sweep-parallel.sh: $*" >&2; exit 2; }

shards=""
jobs=""
threads=1
scale=""
transfer=0
keep=""
dry=0
bloomlab="${BLOOMLAB:-bin/bloomlab}"
logins=""

while [ $# -gt 0 ]; do
    case "$1" in
    -h|--help) usage; exit 0 ;;
    -n|--shards) [ $# -ge 2 ] || die "$1 needs a value"; shards="$2"; shift 2 ;;
    -j|--jobs) [ $# -ge 2 ] || die "$1 needs a value"; jobs="$2"; shift 2 ;;
    -t|--threads) [ $# -ge 2 ] || die "$1 needs a value"; threads="$2"; shift 2 ;;
    -S|--sshlogin) [ $# -ge 2 ] || die "$1 needs a value"; logins="$logins --sshlogin $2"; shift 2 ;;
    --transfer) transfer=1; shift ;;
    --scale) [ $# -ge 2 ] || die "$1 needs a value"; scale="$2"; shift 2 ;;
    --bloomlab) [ $# -ge 2 ] || die "$1 needs a value"; bloomlab="$2"; shift 2 ;;
    --keep) [ $# -ge 2 ] || die "$1 needs a value"; keep="$2"; shift 2 ;;
    --dry-run) dry=1; shift ;;
    --) shift; break ;;
    -*) die "unknown option '$1' (--help lists them)" ;;
    *) break ;;
    esac
done
[ $# -eq 2 ] || die "needs EXPERIMENT.ini and OUTPUT.csv (--help)"
experiment="$1"
output="$2"

. "$(dirname "$0")/shard-common.sh"
[ -z "$shards" ] && shards=$(nproc 2>/dev/null || echo 2)
[ -z "$jobs" ] || is_count "$jobs" || die "--jobs: '$jobs' is not a whole number >= 1"
check_shard_settings
[ $dry -eq 1 ] || [ -x "$bloomlab" ] || command -v "$bloomlab" >/dev/null 2>&1 || die "bloomlab binary '$bloomlab' not found (build it: make build)"
command -v parallel >/dev/null 2>&1 || die "GNU parallel is not installed (apt-get install parallel)"

outdir=$(dirname "$output")
[ -d "$outdir" ] || die "output directory '$outdir' does not exist"
if [ -n "$keep" ]; then
    mkdir -p "$keep"
    work="$keep"
elif [ $dry -eq 1 ]; then
    work="$outdir/.shards-XXXX"
else
    work=$(mktemp -d "$outdir/.shards-XXXXXX")
    trap 'rm -rf "$work"' EXIT INT TERM
fi
name=$(basename "$experiment" .ini)

# Absolute paths, so that --workdir on another host finds the same files.
abs() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac; }
case "$bloomlab" in */*) bloomlab=$(abs "$bloomlab") ;; esac

scale_flag=""
[ -n "$scale" ] && scale_flag="--scale $scale"
jobs_flag=""
[ -n "$jobs" ] && jobs_flag="-j $jobs"

work_abs=$(abs "$work")
if [ $transfer -eq 1 ]; then
    # The experiment goes to each host beside the command (parallel runs it
    # in the login's home directory), the shard CSV comes back into $work,
    # and parallel removes both there afterwards.
    base=$(basename "$experiment")
    [ $dry -eq 1 ] || cp "$experiment" "$work_abs/$base"
    run="$bloomlab run $base --shard {}/$shards -o $name-shard-{}.csv --quiet --threads $threads $scale_flag"
    set -- parallel --halt now,fail=1 $jobs_flag $logins --transferfile "$base" \
        --return "$name-shard-{}.csv" --cleanup "$run" ::: $(seq 1 "$shards")
    rundir="$work_abs"
else
    run="$bloomlab run $(abs "$experiment") --shard {}/$shards -o $work_abs/$name-shard-{}.csv --quiet --threads $threads $scale_flag"
    if [ -n "$logins" ]; then
        set -- parallel --halt now,fail=1 $jobs_flag $logins --workdir "$(pwd)" "$run" ::: $(seq 1 "$shards")
    else
        set -- parallel --halt now,fail=1 $jobs_flag "$run" ::: $(seq 1 "$shards")
    fi
    rundir=$(pwd)
fi

if [ $dry -eq 1 ]; then
    echo "cd $rundir && $*"
    echo "$bloomlab merge -o $output $work_abs/$name-shard-1.csv ... $work_abs/$name-shard-$shards.csv"
    exit 0
fi

if ! (cd "$rundir" && "$@"); then
    echo "sweep-parallel.sh: a shard failed; the finished shard files are in $work" >&2
    trap - EXIT
    exit 1
fi
files=""
i=1
while [ "$i" -le "$shards" ]; do
    f="$work_abs/$name-shard-$i.csv"
    [ -f "$f" ] || { echo "sweep-parallel.sh: shard $i/$shards left no $f" >&2; exit 1; }
    files="$files $f"
    i=$((i + 1))
done
# shellcheck disable=SC2086
"$bloomlab" merge -o "$output" $files
