#!/bin/sh
# stale.sh -- is a committed result out of date?  By what decides its bytes,
# not by timestamps: a rebuilt binary with the same results version, the
# same experiment and the same keys would write the same rows, so a newer
# bin/bloomlab alone must not rerun an experiment.
#
#   stale.sh STAMP RESULT COMMAND...
#
# COMMAND prints the line(s) the code would record in RESULT (`bloomlab run
# EXP --inputs`, `bloomlab memory --inputs`: the '# inputs:' fingerprint;
# `bloomlab demo --table`: the whole table).  RESULT is current when it
# holds every line COMMAND prints.  The answer is the timestamp of STAMP,
# which the Makefile makes a prerequisite of RESULT:
#   current -> STAMP is dated like RESULT (not newer: make leaves it)
#   stale   -> STAMP is dated now (newer: make remakes RESULT)
# The Makefile runs this with `+`, so `make -n` asks too and shows only the
# experiments that would really run.
set -eu
[ $# -ge 3 ] || { echo "usage: stale.sh STAMP RESULT COMMAND..." >&2; exit 2; }
stamp=$1 result=$2
shift 2
mkdir -p "$(dirname "$stamp")"

want=$("$@") || { echo "stale.sh: $*: failed" >&2; exit 1; }
current=0
if [ -f "$result" ] && printf '%s\n' "$want" | awk 'NR == FNR { want[$0] = 1; next }
        ($0 in want) { delete want[$0] }
        END { for (line in want) exit 1 }' - "$result"; then
    current=1
fi

if [ "$current" -eq 1 ]; then
    # Touched only when it would otherwise be newer (a first run, or just
    # after the result was remade), so a current result stays untouched.
    if [ ! -f "$stamp" ] || [ "$stamp" -nt "$result" ]; then
        touch -r "$result" "$stamp"
    fi
else
    touch "$stamp"
fi
