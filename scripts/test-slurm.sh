#!/bin/sh
# test-slurm.sh -- `make test-slurm`: scripts/sweep-slurm.sh carried out by a
# real Slurm (Debian's slurm-wlm) on this one machine.
#
# usage: scripts/test-slurm.sh [EXPERIMENT.ini]   (default experiments/fill_m16_k3.ini)
#
# Everything lives in one temporary directory: a MUNGE key and munged's
# socket, pid, log and seed files; a one-node slurm.conf for this host (its
# CPUs and memory as `slurmd -C` reports them, no cgroups:
# proctrack/linuxproc, task/none) with slurmctld's and slurmd's state, spool,
# pid and log files; the shard CSVs.  munged, slurmctld and slurmd run in the
# foreground as this script's background jobs, on free ports, so nothing of
# the machine's own Slurm or MUNGE (if any) is read, used or disturbed.
# Once `sinfo` shows the node idle, sweep-slurm.sh submits the experiment
# as a 4-task job array and the merge job; the merged CSV must equal the
# unsharded `bloomlab run` of the same experiment as tests/test_shards.c
# defines it: the same header and rows once the `#` metadata lines and the
# ns_insert and ns_query columns are set aside.  On exit -- success,
# failure or interrupt -- the jobs are cancelled, every daemon started here
# is stopped (by its pid) and the directory is removed; on failure the
# daemons' logs are shown first.  TEST_SLURM_KEEP=1 keeps the directory.
#
# Needs root: slurmd launches each job as the submitting user (setuid), and
# munged and the daemons run as root here (SlurmUser=root).  The packages
# come from scripts/deps.sh slurm.  $BLOOMLAB names the binary (default
# bin/bloomlab; `make test-slurm` builds it).
set -eu

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[ $# -le 1 ] || { echo "test-slurm.sh: one experiment at most (--help)" >&2; exit 2; }

SHARDS=4
experiment="${1:-experiments/fill_m16_k3.ini}"
bloomlab="${BLOOMLAB:-bin/bloomlab}"
here=$(cd "$(dirname "$0")/.." && pwd)

now() { date +%s.%N; }
T0=$(now)
STEP_T=$T0
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
step() { STEP_T=$(now); printf 'test-slurm: [%6ss] %s\n' "$(elapsed "$T0")" "$*"; }
done_step() { printf 'test-slurm: [%6ss]   ... %s (%ss)\n' "$(elapsed "$T0")" "${1:-done}" "$(elapsed "$STEP_T")"; }
fail() {
    echo "test-slurm: FAILED: $*" >&2
    exit 1
}

[ "$(id -u)" -eq 0 ] || { echo "test-slurm: needs root (slurmd starts jobs as their user; the daemons run as root here)" >&2; exit 2; }
[ -f "$experiment" ] || { echo "test-slurm: experiment file '$experiment' does not exist" >&2; exit 2; }
[ -x "$bloomlab" ] || { echo "test-slurm: no binary '$bloomlab' (make build)" >&2; exit 2; }
case "$bloomlab" in /*) ;; */*) bloomlab="$(pwd)/$bloomlab" ;; esac
case "$experiment" in /*) ;; *) experiment="$(pwd)/$experiment" ;; esac
name=$(basename "$experiment" .ini)

step "installing what is missing (scripts/deps.sh slurm)"
sh "$here/scripts/deps.sh" slurm
for c in munged slurmctld slurmd sbatch sinfo squeue scontrol scancel; do
    command -v "$c" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin"
    command -v "$c" >/dev/null 2>&1 || fail "'$c' is not installed (scripts/deps.sh slurm)"
done
done_step "$(slurmctld -V), $(munged -V 2>&1 | head -n 1)"

# ---- the temporary cluster, and its removal whatever happens ---------------
T=$(mktemp -d "${TMPDIR:-/tmp}/bloomlab-slurm.XXXXXX")
chmod 0755 "$T"
PIDS=""          # the daemons started here, in the order started
FAILED=1         # cleared when every check passed
INTERRUPTED=0

show_logs() {
    # A daemon's log file, or what it wrote on stderr when it has none
    # (munged in the foreground logs there; the others to both).
    for d in munged slurmctld slurmd; do
        if [ -s "$T/log/$d.log" ]; then echo "$T/log/$d.log"; else echo "$T/log/$d.out"; fi
    done | while read -r f; do
        [ -s "$f" ] || continue
        echo "test-slurm: ---- last lines of ${f#"$T"/} ----" >&2
        tail -n 25 "$f" | sed 's/^/test-slurm:   /' >&2
    done
    for f in "$T"/shards/slurm-*.out; do
        [ -s "$f" ] || continue
        echo "test-slurm: ---- last lines of ${f#"$T"/} ----" >&2
        tail -n 25 "$f" | sed 's/^/test-slurm:   /' >&2
    done
}

cleanup() {
    status=$?
    trap - EXIT INT TERM HUP
    set +e
    if [ "$INTERRUPTED" -eq 1 ]; then
        echo "test-slurm: interrupted" >&2
    elif [ "$FAILED" -ne 0 ]; then
        [ "$status" -ne 0 ] || status=1
        show_logs
    fi
    step "cleaning up (cancel jobs, stop daemons, remove $T)"
    if [ -f "$T/etc/slurm.conf" ] && [ -n "$PIDS" ]; then
        SLURM_CONF="$T/etc/slurm.conf" scancel --quiet --full --user=root 2>/dev/null
        i=0
        while [ $i -lt 20 ] && [ -n "$(SLURM_CONF="$T/etc/slurm.conf" squeue -h -t running,completing -o %i 2>/dev/null)" ]; do
            sleep 0.5; i=$((i + 1))
        done
    fi
    # Stop in reverse order (slurmd, slurmctld, munged): TERM, then KILL
    # whatever has not gone within 10 seconds.
    rev=""
    for np in $PIDS; do rev="$np $rev"; done
    for np in $rev; do
        p=${np#*:}
        kill -TERM "$p" 2>/dev/null || continue
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
        if kill -0 "$p" 2>/dev/null; then
            echo "test-slurm: pid $p did not stop on TERM; KILL" >&2
            kill -KILL "$p" 2>/dev/null
        fi
        wait "$p" 2>/dev/null
    done
    if [ "${TEST_SLURM_KEEP:-0}" = 1 ]; then
        echo "test-slurm: kept $T (TEST_SLURM_KEEP=1)"
    else
        rm -rf "$T"
    fi
    done_step "stopped (name:pid):${PIDS:- nothing}"
    if [ "$status" -eq 0 ]; then
        echo "test-slurm: PASS: $SHARDS Slurm array tasks merged equal the unsharded run of $name; total wall time $(elapsed "$T0") s"
    else
        echo "test-slurm: FAIL (exit $status); total wall time $(elapsed "$T0") s" >&2
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'INTERRUPTED=1; exit 130' INT
trap 'INTERRUPTED=1; exit 143' TERM
trap 'INTERRUPTED=1; exit 129' HUP

mkdir -p "$T/etc" "$T/munge" "$T/log" "$T/state" "$T/spool" "$T/run" "$T/shards"

# Two free TCP ports for slurmctld and slurmd (the defaults, 6817 and 6818,
# may belong to a real Slurm or to another run of this test).
ports=$(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
CTLD_PORT=${ports% *}
SLURMD_PORT=${ports#* }

# ---- munged ------------------------------------------------------------------
step "starting munged (key, socket, pid, log and seed under $T/munge)"
if command -v mungekey >/dev/null 2>&1; then
    mungekey --create --keyfile="$T/munge/munge.key" --force
else
    dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null
fi
chmod 0400 "$T/munge/munge.key"
SOCKET="$T/munge/munge.socket"
munged --foreground --socket="$SOCKET" --key-file="$T/munge/munge.key" \
    --pid-file="$T/munge/munged.pid" --log-file="$T/log/munged.log" \
    --seed-file="$T/munge/munged.seed" >"$T/log/munged.out" 2>&1 &
PIDS="$PIDS munged:$!"
i=0
until munge --socket="$SOCKET" -n 2>/dev/null | unmunge --socket="$SOCKET" >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 50 ] || fail "munged did not answer on $SOCKET within 10 s"
    kill -0 "${PIDS##*:}" 2>/dev/null || fail "munged exited (its log follows)"
    sleep 0.2
done
done_step "a credential made and checked through $SOCKET"

# ---- slurm.conf --------------------------------------------------------------
step "writing a one-node slurm.conf for this host"
node_line=$(slurmd -C | head -n 1)
node=$(printf '%s\n' "$node_line" | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p')
[ -n "$node" ] || fail "slurmd -C gave no NodeName: '$node_line'"
hw=$(printf '%s\n' "$node_line" | sed 's/^NodeName=[^ ]* //')
cat >"$T/etc/slurm.conf" <<EOF
# written by bloomlab's scripts/test-slurm.sh; removed with $T
ClusterName=bloomlabtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCKET
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MailProg=/bin/true
TmpFS=$T
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=bloomlab Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/etc/slurm.conf"
done_step "NodeName=$node $hw; ports $CTLD_PORT and $SLURMD_PORT"

# ---- slurmctld, slurmd -------------------------------------------------------
step "starting slurmctld and slurmd (foreground, background jobs of this script)"
slurmctld -D -i -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
PIDS="$PIDS slurmctld:$!"
CTLD_PID=$!
i=0
until scontrol ping 2>/dev/null | grep -q 'is UP'; do
    i=$((i + 1))
    [ $i -lt 60 ] || fail "slurmctld did not answer scontrol ping within 30 s"
    kill -0 "$CTLD_PID" 2>/dev/null || fail "slurmctld exited (its log follows)"
    sleep 0.5
done
slurmd -D -N "$node" -f "$SLURM_CONF" >"$T/log/slurmd.out" 2>&1 &
PIDS="$PIDS slurmd:$!"
SLURMD_PID=$!
i=0
state=""
while :; do
    state=$(sinfo -h -N -n "$node" -o '%T' 2>/dev/null | head -n 1)
    case "$state" in idle) break ;; esac
    i=$((i + 1))
    [ $i -lt 120 ] || fail "the node is '$state', not idle, after 60 s"
    kill -0 "$SLURMD_PID" 2>/dev/null || fail "slurmd exited (its log follows)"
    kill -0 "$CTLD_PID" 2>/dev/null || fail "slurmctld exited (its log follows)"
    sleep 0.5
done
done_step "sinfo: $(sinfo -h -N -o '%N %P %T %c CPUs %m MB' | head -n 1)"

# ---- the unsharded run -------------------------------------------------------
step "unsharded: bloomlab run $(basename "$experiment")"
"$bloomlab" run "$experiment" -o "$T/whole.csv" --quiet --threads "$(nproc)"
done_step "$(grep -cv '^#' "$T/whole.csv") lines (header and rows)"

# ---- the Slurm job array and the merge job -----------------------------------
step "submitting: scripts/sweep-slurm.sh -n $SHARDS"
out=$(sh "$here/scripts/sweep-slurm.sh" -n "$SHARDS" --time 00:10:00 --bloomlab "$bloomlab" \
    --dir "$T/shards" "$experiment" "$T/merged.csv")
echo "test-slurm:   $out"
array_job=$(printf '%s\n' "$out" | sed -n 's/^submitted array job \([0-9]*\) .*/\1/p')
merge_job=$(printf '%s\n' "$out" | sed -n 's/.* and merge job \([0-9]*\) .*/\1/p')
if [ -z "$array_job" ] || [ -z "$merge_job" ]; then fail "no job ids in sweep-slurm.sh's output"; fi
done_step "array job $array_job, merge job $merge_job"

step "waiting for the $SHARDS array tasks and the merge job"
# Each array task as ID:STATE:EXITCODE, e.g. 2:FAILED:3:0.
array_tasks() {
    scontrol -o show job "$array_job" 2>/dev/null |
        sed -n 's/.*ArrayTaskId=\([^ ]*\) .*JobState=\([^ ]*\) .*ExitCode=\([^ ]*\) .*/\1:\2:\3/p' |
        sort -t: -n | tr '\n' ' ' | sed 's/ $//'
}
job_field() { scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
i=0
while :; do
    merge_state=$(job_field "$merge_job" JobState)
    case "$merge_state" in
    COMPLETED) break ;;
    FAILED|CANCELLED*|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)
        fail "the merge job $merge_job ended $merge_state" ;;
    esac
    [ "$(job_field "$merge_job" Reason)" != DependencyNeverSatisfied ] ||
        fail "an array task failed, so the merge job $merge_job can never run (tasks id:state:exit: $(array_tasks))"
    i=$((i + 1))
    [ $i -lt 1200 ] || fail "the jobs did not finish within 10 minutes (merge job: $merge_state)"
    sleep 0.5
done
tasks=$(array_tasks)
done_step "tasks (id:state:exit) $tasks; merge job $merge_job $merge_state $(job_field "$merge_job" ExitCode)"
for t in $tasks; do
    case "$t" in *:COMPLETED:0:0) ;; *) fail "array task $t did not complete cleanly" ;; esac
done

# ---- the comparison ----------------------------------------------------------
step "comparing the merged CSV with the unsharded one"
[ -f "$T/merged.csv" ] || fail "the merge job left no $T/merged.csv"
shard_files=$(find "$T/shards" -name "$name-shard-*.csv" | wc -l)
[ "$shard_files" -eq "$SHARDS" ] || fail "$shard_files shard CSVs, not $SHARDS"
grep -q '^# shard: merged' "$T/merged.csv" || fail "merged.csv does not say '# shard: merged'"
# tests/test_shards.c's data_without_timings: the # lines (and empty lines)
# dropped, the columns the header names ns_insert and ns_query removed.
without_timings() {
    awk -F, -v OFS=, '
        /^#/ || /^$/ { next }
        !seen { for (i = 1; i <= NF; i++) if ($i == "ns_insert" || $i == "ns_query") { drop[i] = 1; n++ }
                if (n != 2) { print FILENAME ": no ns_insert/ns_query columns" > "/dev/stderr"; exit 1 }
                seen = 1 }
        { line = ""; sep = ""
          for (i = 1; i <= NF; i++) if (!(i in drop)) { line = line sep $i; sep = "," }
          print line }' "$1"
}
without_timings "$T/whole.csv" >"$T/whole.data"
without_timings "$T/merged.csv" >"$T/merged.data"
rows=$(($(wc -l <"$T/whole.data") - 1))
[ "$rows" -ge 1 ] || fail "the unsharded run has no rows"
if ! cmp -s "$T/whole.data" "$T/merged.data"; then
    diff "$T/whole.data" "$T/merged.data" | head -n 20 | sed 's/^/test-slurm:   /' >&2
    fail "the merged shards differ from the unsharded run"
fi
done_step "header and $rows rows the same bytes (ns_insert, ns_query and # lines aside)"

FAILED=0
