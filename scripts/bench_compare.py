"""bench_compare.py -- the table of scripts/bench-compare.sh: NEW / OLD for
every figure both binaries measured, each side the least over its rounds.

    bench_compare.py DIR ROUNDS [OUT.csv]

DIR holds old.R.csv and new.R.csv (bloomlab bench -o), R = 1..ROUNDS.
Columns are read by name; rows are matched by section, filter, hash,
scheme, keys and bytes (the filter section: the loops)."""
import csv
import math
import sys

KEY = ("section", "filter", "hash", "scheme", "keys", "bytes")
OPS = ("ns_insert", "ns_absent", "ns_present")


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def figures(directory, side, rounds):
    """(key, op) -> the list of its timings over the rounds."""
    out = {}
    for r in range(1, rounds + 1):
        for row in read(f"{directory}/{side}.{r}.csv"):
            if row["section"] != "filter":
                continue
            key = tuple(row[c] for c in KEY)
            for op in OPS:
                if row.get(op):
                    out.setdefault((key, op), []).append(float(row[op]))
    return out


def main():
    directory, rounds = sys.argv[1], int(sys.argv[2])
    out_path = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
    old, new = figures(directory, "old", rounds), figures(directory, "new", rounds)
    rows = []
    for k in set(old) & set(new):
        o, n = old[k], new[k]
        named = dict(zip(KEY, k[0]))  # the key's values by their column names
        rows.append({"filter": named["filter"], "scheme": named["scheme"], "keys": named["keys"],
                     "bytes": named["bytes"], "op": k[1],
                     "old_ns": min(o), "new_ns": min(n), "ratio": min(n) / min(o),
                     "old_spread": max(o) / min(o) - 1, "new_spread": max(n) / min(n) - 1})
    rows.sort(key=lambda r: (r["filter"], r["keys"], int(r["bytes"]), r["op"]))
    if not rows:
        print("bench-compare: no figure measured by both binaries", file=sys.stderr)
        sys.exit(1)
    print(f"{'filter':<12} {'scheme':<9} {'keys':<9} {'bytes':>10} {'op':<11} {'old ns':>8} {'new ns':>8} "
          f"{'new/old':>7} {'spread old/new':>15}")
    for r in rows:
        print(f"{r['filter']:<12} {r['scheme']:<9} {r['keys']:<9} {r['bytes']:>10} {r['op']:<11} "
              f"{r['old_ns']:8.2f} {r['new_ns']:8.2f} {r['ratio']:7.3f} "
              f"{100 * r['old_spread']:6.0f}%/{100 * r['new_spread']:4.0f}%")
    ratios = [r["ratio"] for r in rows]
    geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    worst = max(rows, key=lambda r: r["ratio"])
    print(f"\n{len(rows)} figures, {rounds} interleaved rounds, least of each: geometric mean new/old {geo:.3f}; "
          f"largest {worst['ratio']:.3f} ({worst['filter']} {worst['keys']} {worst['bytes']} B {worst['op']}, "
          f"spreads {100 * worst['old_spread']:.0f}% / {100 * worst['new_spread']:.0f}%)")
    if out_path:
        with open(out_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
