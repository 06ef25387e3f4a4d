#!/bin/sh
# paths.sh -- every file of the tree that its own text names exists.
#
# Comments, the README, the experiment files and the docs point readers at
# files ("src/filter/schemes.h", "tests/test_adapters.c"); a file moved or
# renamed leaves such a pointer dangling.  This reads every text file of
# ROOT's own folders (not build/, bin/, lib/ or results/: what make writes)
# and its README.md and Makefile for a path that starts at one of those
# folders and ends in a source or text extension, and names each one that
# is not there.  A name in capitals (experiments/NAME.ini,
# plots/X.gp) is a placeholder, not a file; docs/PERFORMANCE.md is a dated
# log, its paths those of the day it was written.
#
#   sh scripts/paths.sh [ROOT]    exit 0, or 1 with one line per missing
#                                 path: FILE names PATH, which does not exist
set -eu
cd "${1:-.}"
missing=$(find src tests scripts plots experiments docs include adapters examples README.md Makefile \
    -type f -print0 2>/dev/null | xargs -0 grep -IHoE \
  '(^|[^A-Za-z0-9_./-])(src|tests|scripts|plots|experiments|docs|include|adapters|examples)/[A-Za-z0-9_./-]+\.(c|h|cc|py|sh|ini|gp|md)\b' \
  -- 2>/dev/null |
  grep -v '^docs/PERFORMANCE\.md:' |
  sed -E 's/^([^:]*):[^A-Za-z0-9]?/\1 /' |
  while read -r file path; do
    stem=$(basename "$path" | sed 's/\..*//')
    case "$stem" in *[!A-Z_]*) ;; *) continue ;; esac
    [ -e "$path" ] || echo "$file names $path, which does not exist"
  done | sort -u)
[ -z "$missing" ] && exit 0
echo "$missing"
exit 1
