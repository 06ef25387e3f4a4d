#!/bin/sh
# manpage.sh BLOOMLAB -- write bloomlab(1) to stdout, made from the binary's
# own --help texts (the top-level one and each command's), so that the
# manual says what the program does: it cannot fall out of step.
set -eu
bin=${1:?usage: manpage.sh path/to/bloomlab}
version=$("$bin" --version | head -n 1)

# Text for a no-fill block: backslashes doubled, a leading . or ' escaped.
roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

commands=$("$bin" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')

cat <<HEAD
.TH BLOOMLAB 1 "" "$version" "User Commands"
.SH NAME
bloomlab \\- measure Bloom filters against their theory
.SH SYNOPSIS
.B bloomlab
.I COMMAND
.RI [ OPTIONS ]
.br
.B bloomlab
.BR \\-\\-help " | " \\-\\-version
.SH DESCRIPTION
bloomlab sweeps m (bits), n (items), k (hash functions), hashes, index schemes,
filter layouts and key sets from experiment files, measures the false-positive
rate and fill with confidence intervals and the speed, and sets every measurement
beside the theory.  Each command below is shown with its own
.B \\-\\-help
text.
.SH COMMANDS
.nf
HEAD
"$bin" --help | roff
echo ".fi"
for c in $commands; do
    echo ".SS $c"
    echo ".nf"
    "$bin" "$c" --help | roff
    echo ".fi"
done
cat <<'TAIL'
.SH ENVIRONMENT
.TP
.B BLOOMLAB_ISA
portable, avx2 or avx512: caps the vector level chosen at run time (a level
above the CPU's is capped at the CPU's; any other value is refused).
.B bloomlab \-\-version
prints the level and the loops in use.
.SH EXIT STATUS
0 on success; 1 when a run failed (a write error, a memory shortage, a rejected
test where the command says so); 2 for bad input (one line on standard error
names the value and where it came from, and no output file is touched); 130 when
interrupted (finished cells are kept and the next run resumes).
.SH FILES
.TP
.I results/NAME.csv
where
.B bloomlab run
writes by default: tidy CSV, one row per cell, after
.B #
metadata lines.
.SH SEE ALSO
.BR gnuplot (1),
the README of the source tree.
TAIL
