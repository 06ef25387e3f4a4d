#!/bin/sh
# sweep-slurm.sh -- one experiment as a Slurm job array: task I runs
# `bloomlab run --shard I/N` (I = $SLURM_ARRAY_TASK_ID), and a merge job,
# held until every task has succeeded (--dependency=afterok), joins the
# shards with `bloomlab merge`.
#
# usage: scripts/sweep-slurm.sh [options] EXPERIMENT.ini OUTPUT.csv
#
#   -n, --shards N       array tasks (default 16)
#   -t, --threads T      OpenMP threads (and --cpus-per-task) per task (default 1)
#       --time T         wall-time limit per task (sbatch --time; default 04:00:00)
#       --mem M          memory per task (sbatch --mem, e.g. 4G)
#       --partition P    sbatch --partition
#       --account A      sbatch --account
#       --scale S        quick or full (passed to bloomlab run)
#       --bloomlab PATH  the binary, as the compute nodes see it
#                        (default: $BLOOMLAB or bin/bloomlab, made absolute)
#       --dir DIR        shard CSVs and Slurm logs (default OUTPUT's
#                        directory/.shards-NAME); it must be on a file system
#                        every node shares
#       --dry-run        print the commands (a shell script) instead of
#                        submitting them
#
# $SBATCH names the sbatch to call (default sbatch).  A failed task leaves
# the merge job pending forever (afterok): cancel it with scancel, fix,
# and resubmit; tasks that finished are cheap to rerun (bloomlab run
# resumes nothing across shards, but each shard is small).
set -eu

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "sweep-slurm.sh: $*" >&2; exit 2; }

shards=16
threads=1
time_limit="04:00:00"
mem=""
partition=""
account=""
scale=""
dir=""
dry=0
bloomlab="${BLOOMLAB:-bin/bloomlab}"
sbatch="${SBATCH:-sbatch}"

while [ $# -gt 0 ]; do
    case "$1" in
    -h|--help) usage; exit 0 ;;
    -n|--shards) [ $# -ge 2 ] || die "$1 needs a value"; shards="$2"; shift 2 ;;
    -t|--threads) [ $# -ge 2 ] || die "$1 needs a value"; threads="$2"; shift 2 ;;
    --time) [ $# -ge 2 ] || die "$1 needs a value"; time_limit="$2"; shift 2 ;;
    --mem) [ $# -ge 2 ] || die "$1 needs a value"; mem="$2"; shift 2 ;;
    --partition) [ $# -ge 2 ] || die "$1 needs a value"; partition="$2"; shift 2 ;;
    --account) [ $# -ge 2 ] || die "$1 needs a value"; account="$2"; shift 2 ;;
    --scale) [ $# -ge 2 ] || die "$1 needs a value"; scale="$2"; shift 2 ;;
    --bloomlab) [ $# -ge 2 ] || die "$1 needs a value"; bloomlab="$2"; shift 2 ;;
    --dir) [ $# -ge 2 ] || die "$1 needs a value"; dir="$2"; shift 2 ;;
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
check_shard_settings
case "$time_limit" in *[!0-9:-]*|'') die "--time: '$time_limit' is not a Slurm time (e.g. 01:00:00 or 1-00:00:00)" ;; esac
[ $dry -eq 1 ] || command -v "$sbatch" >/dev/null 2>&1 || die "'$sbatch' not found: is this a Slurm login node? (--dry-run prints the plan)"

abs() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac; }
name=$(basename "$experiment" .ini)
experiment=$(abs "$experiment")
output=$(abs "$output")
case "$bloomlab" in */*) bloomlab=$(abs "$bloomlab") ;; esac
[ -n "$dir" ] || dir="$(dirname "$output")/.shards-$name"
dir=$(abs "$dir")

options="--job-name=bloomlab-$name --cpus-per-task=$threads --time=$time_limit"
[ -n "$mem" ] && options="$options --mem=$mem"
[ -n "$partition" ] && options="$options --partition=$partition"
[ -n "$account" ] && options="$options --account=$account"
scale_flag=""
[ -n "$scale" ] && scale_flag=" --scale $scale"

# \$: ${SLURM_ARRAY_TASK_ID} stays literal here and in sbatch's --wrap
# (single-quoted below); the task's shell expands it.
task="$bloomlab run $experiment --shard \${SLURM_ARRAY_TASK_ID}/$shards -o $dir/$name-shard-\${SLURM_ARRAY_TASK_ID}.csv --threads $threads --quiet$scale_flag"
i=1
files=""
while [ "$i" -le "$shards" ]; do
    files="$files $dir/$name-shard-$i.csv"
    i=$((i + 1))
done
merge="$bloomlab merge -o $output$files"

array_cmd="$sbatch --parsable $options --array=1-$shards --output=$dir/slurm-%A_%a.out --wrap='$task'"
merge_cmd="$sbatch --parsable --job-name=bloomlab-$name-merge --time=00:30:00 --dependency=afterok:\$array_job --output=$dir/slurm-merge-%j.out${partition:+ --partition=$partition}${account:+ --account=$account} --wrap='$merge'"

if [ $dry -eq 1 ]; then
    echo "mkdir -p $dir"
    echo "array_job=\$($array_cmd)"
    echo "$merge_cmd"
    exit 0
fi

mkdir -p "$dir"
array_job=$(eval "$array_cmd")
array_job=${array_job%%;*} # --parsable prints JOBID or JOBID;CLUSTER
case "$array_job" in ''|*[!0-9]*) echo "sweep-slurm.sh: sbatch gave no job id ('$array_job')" >&2; exit 1 ;; esac
merge_job=$(eval "$merge_cmd")
echo "submitted array job $array_job ($shards tasks) and merge job ${merge_job%%;*} -> $output"
