#!/bin/sh
# layers.sh -- the source tree's layers, and that every #include points down.
#
#   commands   one file per `bloomlab X`: options, messages, exit status
#   harness    experiments, the sweep, key sets, CSV writing, timing, options
#   api        libbloomlab's API (include/bloomlab/bloomlab.h)
#   model      theory, statistics, sizing: what a layout should do
#   filter     the filter library: layouts, batch loops, vector loops, plugins
#   base       hashes, PCG, the CPU and its caches, numbers, text, version
#
# A file may include its own layer and the layers listed after it on its
# line below, nothing else: the filter library (filter, base) builds
# without the model, libbloomlab (api, model, filter, base) without the
# harness, and nothing below commands knows a command exists.  Every
# include of the tree's own headers is written "LAYER/NAME.h" (-Isrc), so
# this check reads them from the text alone.
#
#   sh scripts/layers.sh [SRC_DIR]    exit 0, or 1 with one line per
#                                     include that points up or sideways
set -eu
src="${1:-src}"
allowed() {
  case "$1" in
    commands) echo "commands harness api model filter base" ;;
    harness) echo "harness model filter base" ;;
    api) echo "api model filter base" ;;
    model) echo "model filter base" ;;
    filter) echo "filter base" ;;
    base) echo "base" ;;
    *) echo "" ;;
  esac
}
bad=0
for file in "$src"/*; do
  [ -f "$file" ] || continue
  echo "layers: $file is outside every layer (put it in $src/LAYER/)"
  bad=1
done
for dir in "$src"/*/; do
  layer=$(basename "$dir")
  ok=$(allowed "$layer")
  if [ -z "$ok" ]; then
    echo "layers: $dir is not a layer (commands harness api model filter base)"
    bad=1
    continue
  fi
  for file in "$dir"*.[ch]; do
    [ -f "$file" ] || continue
    # Each quoted include: LAYER/NAME.h, or a bare name (not allowed).
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file"); do
      case "$inc" in
        bloomlab/*) continue ;; # the installed headers (include/), below every layer
        */*) to=${inc%%/*} ;;
        *) echo "layers: $file includes \"$inc\": name its layer (\"LAYER/$inc\")"; bad=1; continue ;;
      esac
      case " $ok " in
        *" $to "*) ;;
        *) echo "layers: $file ($layer) includes \"$inc\" ($to): $layer may include only $ok"; bad=1 ;;
      esac
    done
  done
done
exit $bad
