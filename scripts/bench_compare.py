"""bench_compare.py -- the table of scripts/bench-compare.sh: NEW / OLD for
every figure both binaries measured.

    bench_compare.py DIR ROUNDS [OUT.csv]

DIR holds old.R.csv and new.R.csv (bloomlab bench -o), R = 1..ROUNDS.
Columns are read by name; rows are matched by section, filter, hash,
scheme, keys, bytes and, where the CSV has it, system (the filter
section: the loops; the peers section, with bench --peers: the peers
kit's configurations, the batch loops and the one-key calls apart).

Two ratios a figure:
  least   min(new) / min(old), each side the least over its rounds (what a
          speed claim states: the minimum over interleaved rounds);
  paired  the median over the rounds of new_R / old_R, the two timings of
          one round taken back to back.  A shared host's load moves slowly
          against a round (seconds), so the round's ratio cancels it where
          each side's least may come from different moments: the paired
          ratio is the steadier judge of whether a change helps, the least
          the figure to quote.

Where both binaries ran on a machine that exposes hardware counters (bench's
cycles_* and instructions_* columns), two more a figure, each the ratio of
the two sides' medians over the rounds: instructions (the work a change
added or removed, which the host's load does not move) and cycles (this
thread's own, which it moves less than wall time); blank elsewhere."""
import csv
import math
import statistics
import sys

KEY = ("section", "filter", "hash", "scheme", "keys", "bytes", "system")
SECTIONS = ("filter", "peers")
OPS = ("ns_insert", "ns_absent", "ns_present")
COUNTS = ("cycles", "instructions")  # bench's cycles_OP and instructions_OP beside ns_OP


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def number(text):
    return float(text) if text else math.nan


def figures(directory, side, rounds):
    """(key, op) -> {round: its timing}, and (key, op) -> {round: {count: value}} (NaN where blank)."""
    out, counted = {}, {}
    for r in range(1, rounds + 1):
        for row in read(f"{directory}/{side}.{r}.csv"):
            if row["section"] not in SECTIONS:
                continue
            key = tuple(row.get(c, "") for c in KEY)
            for op in OPS:
                if row.get(op):
                    out.setdefault((key, op), {})[r] = float(row[op])
                    name = op[len("ns_"):]
                    counted.setdefault((key, op), {})[r] = {c: number(row.get(f"{c}_{name}", "")) for c in COUNTS}
    return out, counted


def count_ratio(old, new, count):
    """new / old of a count's medians over the rounds; NaN where either side has none."""
    o = [v[count] for v in old.values() if not math.isnan(v[count])]
    n = [v[count] for v in new.values() if not math.isnan(v[count])]
    if not o or not n or statistics.median(o) <= 0:
        return math.nan
    return statistics.median(n) / statistics.median(o)


def paired_ratio(old, new):
    """The median of new_R / old_R over the rounds R both sides measured."""
    return statistics.median(new[r] / old[r] for r in set(old) & set(new))


def compare(old_side, new_side):
    """A row a figure both sides measured, sorted for the table."""
    (old, old_counts), (new, new_counts) = old_side, new_side
    rows = []
    for k in set(old) & set(new):
        o, n = old[k], new[k]
        named = dict(zip(KEY, k[0]))  # the key's values by their column names
        lo, ln = min(o.values()), min(n.values())
        rows.append({"section": named["section"], "filter": named["filter"], "scheme": named["scheme"],
                     "keys": named["keys"], "bytes": named["bytes"], "system": named["system"], "op": k[1],
                     "old_ns": lo, "new_ns": ln, "ratio": ln / lo, "paired_ratio": paired_ratio(o, n),
                     "old_spread": max(o.values()) / lo - 1, "new_spread": max(n.values()) / ln - 1,
                     "cycles_ratio": count_ratio(old_counts[k], new_counts[k], "cycles"),
                     "instructions_ratio": count_ratio(old_counts[k], new_counts[k], "instructions")})
    rows.sort(key=lambda r: (r["section"], r["filter"], r["system"], r["keys"], int(r["bytes"]), r["op"]))
    return rows


def display_name(row):
    """The filter, marked * in the peers section and [one-key] for the
    library's one-key calls there (system bloomlab-one-key)."""
    name = row["filter"] if row["section"] == "filter" else row["filter"] + "*"
    return name + " [one-key]" if row["system"].endswith("one-key") else name


def geometric_mean(values):
    return math.exp(sum(math.log(x) for x in values) / len(values))


def main():
    directory, rounds = sys.argv[1], int(sys.argv[2])
    out_path = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
    rows = compare(figures(directory, "old", rounds), figures(directory, "new", rounds))
    if not rows:
        print("bench-compare: no figure measured by both binaries", file=sys.stderr)
        sys.exit(1)
    counted = any(not math.isnan(r["instructions_ratio"]) for r in rows)
    print(f"{'filter':<22} {'scheme':<9} {'keys':<9} {'bytes':>10} {'op':<11} {'old ns':>8} {'new ns':>8} "
          f"{'new/old':>7} {'paired':>7} {'spread old/new':>15}" + (f" {'cycles':>7} {'instr':>7}" if counted else ""))
    for r in rows:
        print(f"{display_name(r):<22} {r['scheme']:<9} {r['keys']:<9} {r['bytes']:>10} {r['op']:<11} "
              f"{r['old_ns']:8.2f} {r['new_ns']:8.2f} {r['ratio']:7.3f} {r['paired_ratio']:7.3f} "
              f"{100 * r['old_spread']:6.0f}%/{100 * r['new_spread']:4.0f}%" +
              (f" {r['cycles_ratio']:7.3f} {r['instructions_ratio']:7.3f}" if counted else ""))
    worst = max(rows, key=lambda r: r["ratio"])
    if any(r["section"] == "peers" for r in rows):
        print("(* the peers section: bench --peers's configurations; [one-key]: the library's one-key calls)")
    least = geometric_mean([r["ratio"] for r in rows])
    paired = geometric_mean([r["paired_ratio"] for r in rows])
    print(f"\n{len(rows)} figures, {rounds} interleaved rounds: geometric mean new/old {least:.3f} (least of each), "
          f"{paired:.3f} (paired: the median of the rounds' ratios)")
    if not counted:
        print("(no cycles or instructions: the machine exposes no hardware counters to bench)")
    print(f"largest least-of-each {worst['ratio']:.3f} ({worst['filter']} {worst['keys']} {worst['bytes']} B "
          f"{worst['op']}, spreads {100 * worst['old_spread']:.0f}% / {100 * worst['new_spread']:.0f}%, "
          f"paired {worst['paired_ratio']:.3f})")
    if out_path:
        with open(out_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
            w.writeheader()
            w.writerows({c: "" if isinstance(v, float) and math.isnan(v) else v for c, v in r.items()} for r in rows)


if __name__ == "__main__":
    main()
