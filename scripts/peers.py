#!/usr/bin/env python3
"""peers.py -- the raw rounds of scripts/bench-peers.sh into results/peers.csv.

Each figure (system, isa, layout, bits per key, n, operation) is the minimum
over the rounds; ns_max and spread (max / min - 1) say how far the rounds
were apart.  The floor rows are bloomlab bench's: the lines an operation
touches times the machine's random-line ceiling at the filter's size (the
minimum over every run that measured it).  `panel` and `series` say where
plots/peers.gp draws a row (blank: not drawn).  `cycles` and `instructions`
an operation are bloomlab bench's counts (src/harness/counters.h) in the
round of the least time, blank for the peers' driver (it counts nothing)
and wherever the machine exposes no counters (the `# counters:` line).

    peers.py RAW HEADER MODEL LEVELS ROUNDS CPU VERSION KIT PIN BUILDS COUNTERS [ROUNDS_CSV]

With ROUNDS_CSV, each figure's every round is also written there, one row a
round (the floor's the least of that round's runs): what
scripts/peers_targets.py pairs round by round, each bloomlab figure against
the peers of its own round."""
import csv
import datetime
import sys

raw, header_file, model, levels, rounds, cpu, version, kit, pin, builds, counters = sys.argv[1:12]
rounds_csv = sys.argv[12] if len(sys.argv) > 12 else None
header = open(header_file).read().strip().split(",")
figures = {}  # (system, isa, layout, bpk, n, op) -> [(ns, cycles, instructions, round)], counts "" where none


def add(key, round_, ns, cycles="", instructions=""):
    figures.setdefault(key, []).append((float(ns), cycles, instructions, int(round_)))


# scripts/bench-peers.sh puts round,source,isa before each line of the raw
# file (isa: bloomlab's vector level, or the -march the peers' driver was
# built for).  The kit's driver prints no header: its columns are named
# here, as its README gives them, so that what follows reads every field by
# name (bloomlab's by its own header).
DRIVER = ("system", "layout", "n", "bits_per_key", "k", "fpr", "insert_ns", "absent_ns", "present_ns")

for row in csv.reader(open(raw)):
    if not row:
        continue
    _round, source, isa = row[:3]
    if source == "bloomlab":
        r = dict(zip(header, row[3:]))
        if r["section"] != "peers":
            continue
        bpk = "%.2f" % float(r["bits_per_item"])
        n = int(r["n"])
        # xxh3_64 is bloomlab's own hash: "bloomlab"; another (--hash) is named;
        # the library's one-key calls are their own system (bloomlab-one-key)
        system = r.get("system", "bloomlab")
        if r["hash"] != "xxh3_64":
            system += "+" + r["hash"]
        for op in ("insert", "absent", "present"):
            add((system, isa, r["filter"], bpk, n, op), _round, r["ns_" + op], r.get("cycles_" + op, ""),
                r.get("instructions_" + op, ""))
        if system != "bloomlab" and not system.startswith("bloomlab+"):
            continue  # the floor comes from the batch loops' rows, once
        lines_p, lines_a = float(r["lines_present"]), float(r["lines_absent"])
        add(("floor", "-", r["filter"], bpk, n, "insert"), _round, lines_p * float(r["ns_update"]))
        add(("floor", "-", r["filter"], bpk, n, "absent"), _round, lines_a * float(r["ns_independent"]))
        add(("floor", "-", r["filter"], bpk, n, "present"), _round, lines_p * float(r["ns_independent"]))
    elif source == "peers":
        r = dict(zip(DRIVER, row[3:]))
        bpk, n = "%.2f" % float(r["bits_per_key"]), int(float(r["n"]))
        for op in ("insert", "absent", "present"):
            add((r["system"], isa, r["layout"], bpk, n, op), _round, r[op + "_ns"])

# What the figure draws: the standard layout at 10 bits per key, the split
# block layout at 10.67 (the peers' own default); the best peers in each.
DRAWN = {
    ("bloomlab", "standard", "10.00"): "standard",
    ("bloomlab", "splitblock", "10.67"): "splitblock",
    ("bloomlab+mulx64", "splitblock", "10.67"): "splitblock",
    ("floor", "standard", "10.00"): "standard",
    ("floor", "splitblock", "10.67"): "splitblock",
    ("fastfilter", "standard-branchless", None): "standard",
    ("boost", "classic-bulk", None): "standard",
    ("boost", "fast_multiblock32_8@10.67-bulk", None): "splitblock",
    ("fastfilter", "splitblock-default", None): "splitblock",
}


def placement(system, isa, layout, bpk):
    panel = DRAWN.get((system, layout, bpk)) or DRAWN.get((system, layout, None))
    if panel is None:
        return "", ""
    if system == "floor":
        return panel, "floor"
    if system.startswith("bloomlab"):
        return panel, system + "-" + isa
    return panel, "%s-%s-%s" % (system, layout.replace("@10.67", "").replace("_8", ""), isa)


print("# command: make bench-peers (scripts/bench-peers.sh)")
print("# date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
print("# cpu: %s" % model)
print("# bloomlab: %s; vector levels run: %s" % (version, levels))
print("# peers: the kit at %s, its driver built with -march= %s (the isa column)" % (kit, " and ".join(builds.split())))
print("# method: %s rounds interleaved (per n: bloomlab at each level, then the peers), %s; ns = minimum over"
      " the rounds, spread = max / min - 1" % (rounds, pin if pin else "not pinned"))
print("# keys: 8-byte random keys; bloomlab xxh3_64 + double (system bloomlab), or the hash its name gives"
      " (bloomlab+HASH); bloomlab-one-key: the library's one-key calls (bloomlab_add, bloomlab_contains);"
      " queries 1e6 absent and 1e6 present")
print("# counters: %s" % counters)
print("system,isa,layout,bits_per_key,n,operation,ns,ns_max,spread,rounds,panel,series,cycles,instructions")
ORDER = sorted(figures, key=lambda k: (k[2], k[3], k[4], k[5], k[0], k[1]))
for key in ORDER:
    rounds_seen = figures[key]
    v = [ns for ns, _, _, _ in rounds_seen]
    _, cycles, instructions, _ = min(rounds_seen, key=lambda r: r[0])  # the round of the least time
    system, isa, layout, bpk, n, op = key
    panel, series = placement(system, isa, layout, bpk)
    print("%s,%s,%s,%s,%d,%s,%.3f,%.3f,%.3f,%d,%s,%s,%s,%s" % (system, isa, layout, bpk, n, op, min(v), max(v),
                                                               max(v) / min(v) - 1 if min(v) > 0 else 0, len(v),
                                                               panel, series, cycles, instructions))

if rounds_csv is not None:
    with open(rounds_csv, "w", newline="") as f:
        f.write("system,isa,layout,bits_per_key,n,operation,round,ns\n")
        for key in ORDER:
            least = {}  # round -> the least ns of its runs (the floor comes from each level's)
            for ns, _, _, round_ in figures[key]:
                least[round_] = min(least.get(round_, ns), ns)
            for round_ in sorted(least):
                f.write("%s,%s,%s,%s,%d,%s,%d,%.3f\n" % (key + (round_, least[round_])))
