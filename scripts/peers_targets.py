"""peers_targets.py -- results/peers.csv against issue 23's targets, as a
Markdown table (make bench-peers writes it to results/peers_targets.md).

    peers_targets.py results/peers.csv [SHOWN [ROUNDS_CSV]]

(SHOWN: the name the table gives its source, when the file read is a
temporary one that is renamed after; default the path read.  ROUNDS_CSV:
scripts/peers.py's rows of every round, for the rounds column below.)

For each layout and bits per key, n and operation:
  target (vector levels) = max(best peer / 1.5, floor / 0.9), the best peer
      being the fastest of that layout's peers built with -march=native,
      the floor the lines the operation touches times the machine's
      random-line ceiling (bench's);
  target (portable) = the best of the same peers built for the x86-64
      baseline (no vector extensions): the portable loops must be no slower.
A ratio measured / target at or below 1 meets it.  Columns are read by
name; a figure the CSV lacks is a dash.  First, the issue's done-when: the
split block at each vector level against Boost's fast_multiblock32 bulk
path alone (DONE_WHEN), with the figures met by system and level; then
every layout against all its peers, whose count leaves the done-when's out.

The ratio is of minima over the rounds.  With ROUNDS_CSV each figure also
says in how many rounds it met the target that round's own peers and floor
set ([k/R]): in a round one n's bloomlab runs and the peers' follow each
other, so the pairing cancels the host's slower swings, and a verdict the host's noise
can move reads as one (met in some rounds, not in others)."""
import csv
import sys

# Each layout's peers (system, layout as the kit's driver names it) at the
# bits per key the CSV gives: the standard layout's at 10, split block's at
# 10 and at 10.67 (fast_multiblock32's and SimdBlockFilterFixed's default).
PEERS = {
    ("standard", "10.00"): [("fastfilter", "standard"), ("fastfilter", "standard-addAll"),
                            ("fastfilter", "standard-branchless"), ("boost", "classic"), ("boost", "classic-bulk")],
    ("splitblock", "10.00"): [("boost", "fast_multiblock32_8"), ("boost", "fast_multiblock32_8-bulk"),
                              ("fastfilter", "splitblock")],
    ("splitblock", "10.67"): [("boost", "fast_multiblock32_8@10.67"), ("boost", "fast_multiblock32_8@10.67-bulk"),
                              ("fastfilter", "splitblock-default")],
}
OPS = ("insert", "absent", "present")
# Issue 23's done-when holds the split block at the vector levels to one peer
# alone: Boost's fast_multiblock32<8> bulk path, at the bits per key both run.
DONE_WHEN = {("splitblock", "10.00"): [("boost", "fast_multiblock32_8-bulk")],
             ("splitblock", "10.67"): [("boost", "fast_multiblock32_8@10.67-bulk")]}
# The peers' per-key calls (no bulk or addAll variant): what the library's
# one-key path (system bloomlab-one-key) is held to.
PER_KEY = {("fastfilter", "standard"), ("fastfilter", "standard-branchless"), ("boost", "classic"),
           ("boost", "fast_multiblock32_8"), ("boost", "fast_multiblock32_8@10.67"), ("fastfilter", "splitblock"),
           ("fastfilter", "splitblock-default")}


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    meta = [line.strip() for line in open(path) if line.startswith("#")]
    return rows, meta


def targets(ns_of, peers, layout, bpk, n, op):
    """The targets of one (layout, bits per key, n, operation) from ns_of(key)
    (a figure's ns, or None where it lacks one: the minima over the rounds,
    or one round's own): (best native peer, best x86-64 peer), each (ns,
    name) or None, the floor, and the vector levels' target, max(best native
    peer / 1.5, floor / 0.9), or None."""
    def best(isa):
        seen = [(ns_of((s, isa, l, bpk, n, op)), "%s %s" % (s, l)) for s, l in peers]
        seen = [x for x in seen if x[0] is not None]
        return min(seen) if seen else None
    native, base = best("native"), best("x86-64")
    floor = ns_of(("floor", "-", layout, bpk, n, op))
    target = max(native[0] / 1.5, floor / 0.9) if native is not None and floor is not None else None
    return native, base, floor, target


def goal_of(isa, base, target):
    """What a figure at vector level isa is held to: the portable loops the
    best x86-64 peer, the others the target; None where it is missing."""
    if isa == "portable":
        return base[0] if base is not None else None
    return target


def rounds_met(by_round, peers, system, isa, layout, bpk, n, op):
    """(rounds met, rounds paired) of one figure, each round against the
    targets its own round's figures set, or None without rounds."""
    mine = by_round.get((system, isa, layout, bpk, n, op))
    if not mine:
        return None
    met = paired = 0
    for r, v in mine.items():
        _, base, _, target = targets(lambda key: by_round.get(key, {}).get(r), peers, layout, bpk, n, op)
        goal = goal_of(isa, base, target)
        if goal is not None:
            paired += 1
            met += v <= goal
    return (met, paired) if paired else None


def table(ns, by_round, layout, bpk, peers, bloomlab, title, tally=None, per_system=None):
    """One layout's table: each n and operation, its target, and bloomlab's
    systems against it.  Returns (met, total); tally, where given, counts
    the figures met in every round, in some, in none; per_system, where
    given, (met, total) by system."""
    met = total = 0
    ns_list = sorted({k[4] for k in ns if k[2] == layout and k[3] == bpk and (k[0], k[1]) in bloomlab})
    if not ns_list:
        return 0, 0
    head = ["n", "op", "best native peer", "floor", "target", "best x86-64 peer"]
    head += ["%s %s: ns, /target" % s for s in bloomlab]
    print("## %s at %s bits per key%s\n" % (layout, bpk, title))
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for n in ns_list:
        for op in OPS:
            best, best_base, floor, target = targets(lambda key: ns[key][0] if key in ns else None, peers, layout,
                                                     bpk, n, op)
            cells = ["%.0e" % n, op,
                     "%.2f (%s)" % best if best else "-",
                     "%.2f" % floor if floor is not None else "-",
                     "%.2f" % target if target else "-",
                     "%.2f (%s)" % best_base if best_base else "-"]
            for system, isa in bloomlab:
                v = ns.get((system, isa, layout, bpk, n, op))
                goal = goal_of(isa, best_base, target)
                if v is None or goal is None:
                    cells.append("-" if v is None else "%.2f (%.0f%%)" % (v[0], 100 * v[1]))
                    continue
                ratio = v[0] / goal
                total += 1
                met += ratio <= 1
                if per_system is not None:
                    was = per_system.get((system, isa), (0, 0))
                    per_system[(system, isa)] = (was[0] + (ratio <= 1), was[1] + 1)
                cell = ("%.2f (%.0f%%), **%.2f**" % (v[0], 100 * v[1], ratio) if ratio <= 1 else
                        "%.2f (%.0f%%), %.2f" % (v[0], 100 * v[1], ratio))
                k = rounds_met(by_round, peers, system, isa, layout, bpk, n, op)
                if k is not None:
                    cell += " [%d/%d]" % k
                    if tally is not None:
                        tally["every" if k[0] == k[1] else "none" if k[0] == 0 else "some"] += 1
                cells.append(cell)
            print("| " + " | ".join(cells) + " |")
    print()
    return met, total


def done_when(ns, by_round, vector_systems):
    """Issue 23's done-when first: the split block at each vector level
    against Boost's bulk path alone (DONE_WHEN), and the figures met per
    level; not counted in the tally against every peer below."""
    print("## The done-when: the split block against Boost's fast_multiblock32 bulk path alone\n")
    print("Issue 23 is done when the split block with AVX2 is at or under max(Boost's fast_multiblock32<8> bulk "
          "path / 1.5, floor / 0.9) at n = 1e6, 1e7 and 1e8 (the least over the rounds); the other vector levels "
          "are shown beside it.\n")
    per_system = {}
    for (layout, bpk), peers in DONE_WHEN.items():
        table(ns, by_round, layout, bpk, peers, vector_systems, ": against Boost's bulk path alone (the done-when)",
              per_system=per_system)
    print("The done-when's figures met (least over the rounds), by system and vector level: %s.\n" %
          ("; ".join("%s %s %d of %d" % (system, isa, m, t) for (system, isa), (m, t) in per_system.items()) or
           "none measured"))


def load_rounds(path):
    """ROUNDS_CSV as {(system, isa, layout, bpk, n, op): {round: ns}}."""
    by_round = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["system"], r["isa"], r["layout"], r["bits_per_key"], int(r["n"]), r["operation"])
            by_round.setdefault(key, {})[int(r["round"])] = float(r["ns"])
    return by_round


def main():
    rows, meta = load(sys.argv[1])
    by_round = load_rounds(sys.argv[3]) if len(sys.argv) > 3 else {}
    tally = {"every": 0, "some": 0, "none": 0}
    ns = {}
    for r in rows:
        ns[(r["system"], r["isa"], r["layout"], r["bits_per_key"], int(r["n"]), r["operation"])] = (
            float(r["ns"]), float(r["spread"]))
    systems = sorted({(r["system"], r["isa"]) for r in rows if r["system"].startswith("bloomlab")},
                     key=lambda s: (s[0] != "bloomlab", s[0], ["portable", "avx2", "avx512"].index(s[1])
                                    if s[1] in ("portable", "avx2", "avx512") else 9))
    batch = [s for s in systems if not s[0].startswith("bloomlab-one-key")]
    one_key = [s for s in systems if s[0].startswith("bloomlab-one-key")]
    print("# bloomlab against issue 23's targets\n")
    shown = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
    print("From `%s` (`make bench-peers`); " % shown + "; ".join(m.lstrip("# ") for m in meta if
                                                                         m.startswith(("# date", "# cpu", "# counters"))) + ".")
    print("Target at a vector level = max(best native peer / 1.5, floor / 0.9); at the portable level, the best "
          "peer built for x86-64 (no vector extensions).  measured / target <= 1 meets it; (spread) is max / min - 1 "
          "over the rounds.  The batch path is held to every peer (bulk calls included), the library's one-key "
          "calls (bloomlab-one-key: bloomlab_add, bloomlab_contains) to the peers' per-key calls.\n")
    done_when(ns, by_round, [s for s in batch if s[1] != "portable"])
    met = total = 0
    for (layout, bpk), peers in PEERS.items():
        for group, per_key, title in ((batch, peers, ""), (one_key, [p for p in peers if p in PER_KEY],
                                                            ": the one-key path against the peers' per-key calls")):
            m, t = table(ns, by_round, layout, bpk, per_key, group, title, tally)
            met += m
            total += t
    print("%d of %d figures meet their target (bold)." % (met, total))
    if by_round:
        print("\nRound by round ([k/R]: met in k of the R rounds, each against its own round's peers and floor): "
              "%d figures met in every round, %d in some, %d in none." % (tally["every"], tally["some"],
                                                                        tally["none"]))


if __name__ == "__main__":
    main()
