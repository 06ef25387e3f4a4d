"""peers_baseline.py -- the peers kit's driver.cc as it can build for the
x86-64 baseline (-march=x86-64, no vector extensions): fastfilter_cpp
declares SimdBlockFilterFixed only under __AVX2__, so each block of the
driver that uses it is wrapped in #ifdef __AVX2__ (that peer is then simply
not measured in the baseline build).  Nothing else changes; the kit itself
is only read.

    peers_baseline.py KIT/driver.cc OUT.cc"""
import re
import sys

src = open(sys.argv[1]).read()
# A block: an optional comment line, then "{", a SimdBlockFilterFixed
# declaration, and everything up to the brace closing at the same indent.
block = re.compile(r"(?m)^(?P<indent>[ \t]*)(?://[^\n]*\n(?P=indent))?\{\n(?:(?!^(?P=indent)\}).*\n)*?"
                   r"(?P=indent)[ \t]+SimdBlockFilterFixed<(?:(?!^(?P=indent)\}).*\n)*?(?P=indent)\}\n")
out, count = block.subn(lambda m: "#ifdef __AVX2__\n" + m.group(0) + "#endif\n", src)
if count == 0 and "SimdBlockFilterFixed" in src:
    sys.exit("peers_baseline.py: found SimdBlockFilterFixed but no block to guard: the kit's driver changed")
open(sys.argv[2], "w").write(out)
print(f"peers_baseline.py: {count} SimdBlockFilterFixed blocks guarded", file=sys.stderr)
