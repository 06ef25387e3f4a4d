#!/usr/bin/python3
"""experiment_page.py -- a page for any CSV the sweep writes; `bloomlab report` runs it.

    experiment_page.py CSV [-o DIR]   DIR/NAME.md and DIR/NAME.html (default DIR: the CSV's)
    experiment_page.py --index DIR    DIR/index.html, a link to every page in DIR

A page holds the experiment's '#' metadata; for each group of cells (filter,
hash, scheme, keys, n) a table of the measured FPR and fill with their 95%
intervals beside every formula column the CSV has, and a verdict from its z
column (flagged when |z| > 5); every flagged cell with its z and the reasons
the tool can give; the best k per layout and bits per item where the grid
has several k; and figures: measured FPR with error bars and the exact
formula as a line, against whichever of k, bits_per_item, m, n varies,
drawn by gnuplot from plots/generic.gp and inlined as SVG, so that the HTML
is one self-contained file.  Columns are read by name only: a user's own
experiment gets the same page as the shipped ones.

Bad input (a missing or unreadable file, not a sweep CSV, a missing column,
a value that is not a number) is one line on stderr, exit status 2, and
nothing written; every page is written under a temporary name and renamed.
"""
import csv
import html
import math
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# No __pycache__ beside report.py: not in the source tree (git status stays
# clean), not in an installed $(datadir)/bloomlab (uninstall removes what
# install wrote, nothing more).
sys.dont_write_bytecode = True
from report import Table, num  # noqa: E402  (installed beside this script)
from report_hashes import HASH_BITS, Z_FLAG, best_k, explain, zscore  # noqa: E402

PROG = "bloomlab report"
IDENTITY = ["filter", "hash", "scheme", "keys"]
GROUP = IDENTITY + ["n"]
NUMERIC = ["m", "n", "k", "bits_per_item", "trials", "queries", "fpr", "fpr_lo", "fpr_hi", "fill"]
REQUIRED = IDENTITY + NUMERIC + ["z"]
# The formula columns a sweep may carry, in the order a reader compares them.
FPR_FORMULAS = ["fpr_exact", "fpr_finite", "fpr_classic", "fpr_approx"]
FILL_FORMULAS = ["fill_expected"]
# Columns beyond the identity that can split series (sizing rules, deletes).
EXTRA_SERIES = ["sizing", "p_target", "measure", "deletes"]
AXES = ["bits_per_item", "k", "m", "n"]  # ties on the x axis go to the earlier
AXIS_LABELS = {"k": "k (hash functions)", "m": "m (bits)", "n": "n (items)", "bits_per_item": "bits per item (m/n)"}
MAX_SERIES = 8    # per figure: gnuplot's eight distinct colours
MAX_FIGURES = 24  # per page; the rest are counted, not drawn
FALLBACK = "no mechanism identified"


class BadInput(Exception):
    """The one line `bloomlab report` prints for bad input (exit 2)."""


# ---- reading ----------------------------------------------------------------

def load(path):
    """The sweep CSV at path as a report.Table, checked: BadInput otherwise."""
    if not os.path.isfile(path):
        raise BadInput(f"{path}: no such file")
    try:
        table = Table(path)
    except (OSError, UnicodeDecodeError, ValueError, csv.Error) as e:
        raise BadInput(f"{path}: cannot read: {e}")
    cols = set(table.columns)
    if not cols & {"filter", "fpr"}:
        raise BadInput(f"{path}: not a sweep CSV (its header has neither a filter nor an fpr column)")
    missing = [c for c in REQUIRED if c not in cols]
    if missing:
        raise BadInput(f"{path}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                       f"(a sweep CSV has {'them' if len(missing) > 1 else 'it'})")
    if not table.rows:
        raise BadInput(f"{path}: no rows after the header")
    for line, row in enumerate(table.rows, 1):
        for c in NUMERIC + ["z"]:
            if row[c] not in ("", None) and not is_number(row[c]):
                raise BadInput(f"{path}: row {line}: {c} is '{row[c]}', not a number")
    return table


def is_number(text):
    try:
        float(text)
        return True
    except (TypeError, ValueError):
        return False


def present(table, columns):
    """The columns of `columns` the CSV has with at least one value."""
    return [c for c in columns if c in table.columns and any(r[c] not in ("", None) for r in table.rows)]


def distinct(rows, cols):
    """The distinct value tuples of cols, in the order they first appear."""
    seen = {}
    for r in rows:
        seen.setdefault(tuple(r[c] for c in cols), None)
    return list(seen)


def grouped(rows, cols):
    return grouped_by(rows, lambda r: tuple(r[c] for c in cols))


# ---- judging ----------------------------------------------------------------

def z_of(row):
    return num(row, "z")


def is_flagged(row):
    z = z_of(row)
    return math.isfinite(z) and abs(z) > Z_FLAG


def verdict(row):
    z = z_of(row)
    if not math.isfinite(z):
        return "no z"
    return f"flagged (|z| > {Z_FLAG:g})" if abs(z) > Z_FLAG else f"within {Z_FLAG:g} se"


def reasons(row):
    """What the tool can say about a flagged cell: the mechanism
    report_hashes knows for its hash, scheme and layout, a hash narrower
    than the filter's index, and variance the model lacks."""
    out = []
    why = explain(row)
    if not why.startswith(FALLBACK):
        out.append(why)
    bits, m = HASH_BITS.get(row["hash"]), num(row, "m")
    if bits and m > 2 ** bits and not any("2^32" in w for w in out):
        out.append(f"{row['hash']} gives {bits} bits, fewer than log2 m = {math.log2(m):.1f}: "
                   f"at most 2^{bits} of the m positions can be reached")
    if row.get("dispersion_flag") == "over":
        z_trials, which = zscore(row)
        out.append(f"dispersion_flag = over: the trials spread {num(row, 'dispersion'):.3g} times the model's "
                   f"variance (p = {num(row, 'dispersion_p_over'):.2g}), a variance the model lacks"
                   + (f"; against the trials' own spread z = {z_trials:+.1f}" if which == "trials" else ""))
    return out or [why]


# ---- formatting -------------------------------------------------------------

def fmt(x, digits=4):
    return "--" if not math.isfinite(x) else f"{x:.{digits}g}"


def interval(row, value, lo, hi):
    return f"{fmt(num(row, value))} [{fmt(num(row, lo))}, {fmt(num(row, hi))}]"


def fill_interval(row):
    """fill with its 95% interval between trials (sd / sqrt(trials))."""
    fill, sd, t = num(row, "fill"), num(row, "fill_sd"), num(row, "trials")
    if not (math.isfinite(sd) and t >= 2):
        return fmt(fill)
    half = 1.96 * sd / math.sqrt(t)
    return f"{fmt(fill)} [{fmt(fill - half)}, {fmt(fill + half)}]"


def cell_name(row, cols=("filter", "hash", "scheme", "keys", "m", "n", "k")):
    return " ".join(f"{c}={row[c]}" for c in cols)


# ---- the page, as blocks both renderers read -----------------------------------

def metadata_blocks(table, name):
    rows = [[k, v] for k, v in table.meta.items() if k]
    return [("h", 1, f"Experiment {name}"),
            ("p", f"{len(table.rows)} cells from {table.path}. Each cell: measured FPR and fill with their 95% "
                  f"intervals beside the formulas; flagged when |z| > {Z_FLAG:g} "
                  "(z = (fpr - fpr_exact) / the model's se, the CSV's z column)."),
            ("h", 2, "Metadata"), ("table", ["key", "value"], rows)]


def group_blocks(table):
    fpr_f, fill_f = present(table, FPR_FORMULAS), present(table, FILL_FORMULAS)
    header = ["m", "k", "bits/item", "trials x queries", "fpr [95%]"] + fpr_f + ["fill [95%]"] + fill_f + \
        ["z", "verdict"]
    blocks = [("h", 2, "Cells by filter, hash, scheme, keys and n")]
    for key, rows in grouped(table.rows, GROUP).items():
        body = [[r["m"], r["k"], fmt(num(r, "bits_per_item")), f"{r['trials']} x {r['queries']}",
                 interval(r, "fpr", "fpr_lo", "fpr_hi")] + [fmt(num(r, c)) for c in fpr_f] +
                [fill_interval(r)] + [fmt(num(r, c)) for c in fill_f] +
                [fmt(z_of(r), 3), verdict(r)] for r in rows]
        title = ", ".join(f"{c} = {v}" for c, v in zip(GROUP, key))
        blocks += [("h", 3, title), ("table", header, body)]
    return blocks


def flagged_blocks(table):
    flagged = [r for r in table.rows if is_flagged(r)]
    blocks = [("h", 2, "Flagged cells")]
    if not flagged:
        return blocks + [("p", f"None: every cell with a z lies within {Z_FLAG:g} se of its formula.")]
    items = [f"{cell_name(r)}: fpr {fmt(num(r, 'fpr'))} against fpr_exact {fmt(num(r, 'fpr_exact'))}, "
             f"z = {z_of(r):+.1f}. " + " ".join(w[0].upper() + w[1:] + "." for w in reasons(r)) for r in flagged]
    return blocks + [("p", f"{len(flagged)} of {len(table.rows)} cells."), ("ul", items)]


def best_k_blocks(table):
    """Per layout and bits per item (and hash, scheme, keys, n), where the grid runs several k."""
    cols = GROUP + ["bits_per_item"]
    body = []
    for key, cands in grouped(table.rows, cols).items():
        ks = sorted({int(num(r, "k")) for r in cands})
        if len(ks) < 2:
            continue
        best, apart = best_k(cands)
        formula = best.get("k_best") or "--"
        body.append(list(key[:5]) + [fmt(num(best, "bits_per_item")), f"{ks[0]}..{ks[-1]}", formula, best["k"],
                                     f"{apart[0]}..{apart[-1]}", interval(best, "fpr", "fpr_lo", "fpr_hi")])
    if not body:
        return []
    return [("h", 2, "Best k"),
            ("p", "`measured k`: least measured FPR; `told apart`: the k whose 95% intervals overlap the best's "
                  "(the measurement cannot rank them); `formula k`: the layout's best integer k under its "
                  "exact formula (the CSV's k_best)."),
            ("table", ["filter", "hash", "scheme", "keys", "n", "bits/item", "k run", "formula k", "measured k",
                       "told apart", "fpr at measured k [95%]"], body)]


# ---- figures ------------------------------------------------------------------

def plan_figures(table):
    """The x axis, [(title, keycols, [series keys], [legends])], and how many
    figures were left out.  x is the axis that takes the most values within
    one series (filter, hash, scheme, keys); the other axes split the
    figures only where (series, x) does not already pick one cell, and
    nearly equal values (a blocked layout's m rounded to whole blocks) share
    a figure."""
    rows = table.rows
    base = IDENTITY + [c for c in EXTRA_SERIES if c in table.columns and len(distinct(rows, [c])) > 1]
    per_series = grouped(rows, base).values()
    spread = {a: max(len(distinct(sub, [a])) for sub in per_series) for a in AXES}
    x = max(AXES, key=lambda a: (spread[a], -AXES.index(a)))
    if spread[x] < 2:
        return x, [], 0
    split = []
    for a in [a for a in AXES if a != x]:
        if len(distinct(rows, base + split + [x])) == len(rows):
            break
        split.append(a)
    near = {a: clusters([r[a] for r in rows]) for a in split}
    varying = [len(distinct(rows, [c])) > 1 for c in base]
    figures = []
    for label, sub in grouped_by(rows, lambda r: tuple(near[a][r[a]] for a in split)).items():
        series = distinct(sub, base + split)
        where = ", ".join(f"{a} = {v}" for a, v in zip(split, label))
        for start in range(0, len(series), MAX_SERIES):
            part = series[start:start + MAX_SERIES]
            of = f" (series {start + 1}-{start + len(part)} of {len(series)})" if len(series) > MAX_SERIES else ""
            figures.append((f"FPR against {AXIS_LABELS[x]}{': ' + where if where else ''}{of}", base + split,
                            ["|".join(s) for s in part], [legend(s, varying, split, label) for s in part]))
    return x, figures[:MAX_FIGURES], max(0, len(figures) - MAX_FIGURES)


def legend(values, varying, split, label):
    """A series' legend: the identity columns that vary in the CSV, and a
    split axis's own value where it differs from the figure's (a rounded m)."""
    own = [f"{a} {v}" for a, v, shown in zip(split, values[-len(split):] if split else [], label) if v != shown]
    return " ".join([v for v, vary in zip(values, varying) if vary] + own) or " ".join(values[:len(varying)])


def clusters(texts):
    """{value text: label}: numbers within 5% of the smallest of their run
    share its label ('4', '4.006' and '4.096' bits per item are one
    figure's)."""
    labels, start = {}, None
    for t in sorted(set(texts), key=float):
        if start is None or float(t) > 1.05 * float(start):
            start = t
        labels[t] = start
    return labels


def grouped_by(rows, key):
    out = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return out


def gnuplot_string(text):
    """A gnuplot single-quoted string ('' is a quote inside one)."""
    return "'" + text.replace("'", "''") + "'"


def gnuplot_words(items):
    """Items as one gnuplot word list: each in double quotes (no item holds one)."""
    return " ".join('"' + i.replace('"', "'") + '"' for i in items)


def generic_gp():
    for path in (os.path.join(HERE, "generic.gp"), os.path.join(HERE, "..", "plots", "generic.gp")):
        if os.path.isfile(path):
            return path
    raise RuntimeError(f"generic.gp is neither beside {HERE} nor in its ../plots/")


def axis_is_log(rows, col):
    values = [num(r, col) for r in rows if num(r, col) > 0]
    return bool(values) and max(values) / min(values) > 20


def figure_csv(table, keycols, series, path):
    """The CSV's header and the rows of one figure's series: gnuplot reads
    every row once per series and line, so a figure of a large CSV (a few
    thousand cells) is drawn from its own rows only."""
    wanted = set(series)
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.DictWriter(f, fieldnames=table.columns, lineterminator="\n")
        out.writeheader()
        out.writerows(r for r in table.rows if "|".join(r[c] for c in keycols) in wanted)


def draw(table, x, figure, svg_path):
    """One figure: gnuplot on plots/generic.gp; the SVG's text."""
    title, keycols, series, legends = figure
    formulas = present(table, FPR_FORMULAS[:3])
    data = svg_path[:-len(".svg")] + ".csv"
    figure_csv(table, keycols, series, data)
    settings = {"csv": gnuplot_string(data), "out": gnuplot_string(svg_path),
                "xcol": gnuplot_string(x), "keycols": gnuplot_string(" ".join(keycols)),
                "series": gnuplot_string(gnuplot_words(series)), "titles": gnuplot_string(gnuplot_words(legends)),
                "formula": gnuplot_string(formulas[0] if formulas else ""),
                "logx": str(int(x in ("m", "n") and axis_is_log(table.rows, x))),
                "logy": str(int(axis_is_log(table.rows, "fpr"))),
                "fig_title": gnuplot_string(title)}
    script = "; ".join(f"{k} = {v}" for k, v in settings.items())
    done = subprocess.run(["gnuplot", "-e", script, generic_gp()], capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not os.path.isfile(svg_path):
        raise RuntimeError(f"gnuplot failed on '{title}': {done.stderr.strip().splitlines()[-1:]}")
    with open(svg_path, encoding="utf-8") as f:
        return f.read()


def inline_svg(svg, index):
    """gnuplot's SVG made fit to sit inside HTML: no XML prolog, and ids
    made unique per figure (every figure defines the same point shapes)."""
    svg = svg[svg.index("<svg"):]
    prefix = f"fig{index}-"
    svg = re.sub(r"""\bid=(['"])""", lambda m: f"id={m.group(1)}{prefix}", svg)
    svg = re.sub(r"""(href=['"]#|url\(#)""", lambda m: m.group(1) + prefix, svg)
    return svg.replace("<svg", f'<svg role="img" aria-labelledby="{prefix}caption"', 1)


def figure_blocks(table, workdir):
    x, figures, left_out = plan_figures(table)
    blocks = [("h", 2, "Figures")]
    if not figures:
        return blocks + [("p", "Every cell has the same k, m, n and bits per item: nothing to draw against.")]
    paths = [os.path.join(workdir, f"fig{i}.svg") for i in range(len(figures))]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        svgs = list(pool.map(lambda i: draw(table, x, figures[i], paths[i]), range(len(figures))))
    for i, (figure, svg) in enumerate(zip(figures, svgs), 1):
        blocks.append(("figure", inline_svg(svg, i), f"Figure {i}. {figure[0]}: points measured, bars their 95% "
                                                      "interval, dashed lines the formula."))
    if left_out:
        blocks.append(("p", f"{left_out} more figures are not drawn (at most {MAX_FIGURES} a page)."))
    return blocks


# ---- rendering ----------------------------------------------------------------

def md_cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(blocks, html_name):
    out, figures = [], 0
    for b in blocks:
        if b[0] == "h":
            out += ["#" * b[1] + " " + b[2], ""]
        elif b[0] == "p":
            out += [b[1], ""]
        elif b[0] == "ul":
            out += [f"- {i}" for i in b[1]] + [""]
        elif b[0] == "table":
            out.append("| " + " | ".join(md_cell(c) for c in b[1]) + " |")
            out.append("|" + "|".join("---" for _ in b[1]) + "|")
            out += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in b[2]] + [""]
        elif b[0] == "figure":
            figures += 1
            out += [f"{b[2]} (drawn in [{html_name}]({html_name}))", ""]
    return "\n".join(out)


def code_spans(text):
    """`x` as <code>x</code> in already escaped text."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", text)


def to_html(blocks, title):
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{e(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>"]
    figures = 0
    for b in blocks:
        if b[0] == "h":
            out.append(f"<h{b[1]}>{e(b[2])}</h{b[1]}>")
        elif b[0] == "p":
            out.append(f"<p>{code_spans(e(b[1]))}</p>")
        elif b[0] == "ul":
            out.append("<ul>" + "".join(f"<li>{code_spans(e(i))}</li>" for i in b[1]) + "</ul>")
        elif b[0] == "table":
            head = "".join(f"<th>{e(str(c))}</th>" for c in b[1])
            body = "".join("<tr>" + "".join(f"<td{flag_class(c)}>{e(str(c))}</td>" for c in row) + "</tr>"
                           for row in b[2])
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif b[0] == "figure":
            figures += 1
            out.append(f'<figure class="plot">{b[1]}<figcaption id="fig{figures}-caption">{e(b[2])}'
                       "</figcaption></figure>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


def flag_class(cell):
    return ' class="flagged"' if str(cell).startswith("flagged") else ""


STYLE = ("body{font-family:sans-serif;max-width:72em;margin:1em auto;padding:0 1em;color:#222}"
         "table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #bbb;padding:2px 6px;"
         "text-align:right}th{background:#eee}td.flagged{background:#fdd;font-weight:bold}"
         "figure.plot svg{max-width:100%;height:auto;border:1px solid #ddd}code{background:#f4f4f4}")


# ---- writing ------------------------------------------------------------------

def write_all(files):
    """Write {path: text} under temporary names, then rename each: a page is
    whole or absent; on any failure nothing new is left behind."""
    temps = []
    try:
        for path, text in files.items():
            fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=os.path.dirname(path) or ".")
            temps.append(tmp)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o644)
        for (path, _), tmp in zip(files.items(), temps):
            os.replace(tmp, path)
    except OSError:
        for tmp in temps:
            if os.path.exists(tmp):
                os.unlink(tmp)
        raise


def output_dir(csv_path, given):
    d = given if given is not None else (os.path.dirname(csv_path) or ".")
    if not os.path.isdir(d):
        raise BadInput(f"-o {d}: no such directory")
    return d


def page(csv_path, out_dir):
    table = load(csv_path)
    out_dir = output_dir(csv_path, out_dir)
    name = os.path.splitext(os.path.basename(csv_path))[0]
    with tempfile.TemporaryDirectory(prefix="bloomlab-report-") as work:
        blocks = (metadata_blocks(table, name) + flagged_blocks(table) + best_k_blocks(table) +
                  figure_blocks(table, work) + group_blocks(table))
    write_all({os.path.join(out_dir, name + ".md"): to_markdown(blocks, name + ".html"),
               os.path.join(out_dir, name + ".html"): to_html(blocks, f"bloomlab: {name}")})
    return [os.path.join(out_dir, name + ext) for ext in (".md", ".html")]


def index(directory):
    """DIR/index.html: every sweep CSV in DIR, linked to its page where it has one."""
    if not os.path.isdir(directory):
        raise BadInput(f"--index {directory}: no such directory")
    body = []
    for entry in sorted(os.listdir(directory)):
        if not entry.endswith(".csv"):
            continue
        try:
            table = load(os.path.join(directory, entry))
        except BadInput:
            continue  # not a sweep's CSV (memory.csv, bench.csv, ...)
        name = entry[:-4]
        has_page = os.path.isfile(os.path.join(directory, name + ".html"))
        flagged = sum(is_flagged(r) for r in table.rows)
        body.append([name, has_page, table.meta.get("scale", "--"), str(len(table.rows)), str(flagged)])
    e = html.escape
    rows = "".join(f"<tr><td>{f'<a href={chr(34)}{e(n)}.html{chr(34)}>{e(n)}</a>' if linked else e(n)}</td>"
                   f"<td>{e(s)}</td><td>{c}</td><td>{f}</td></tr>" for n, linked, s, c, f in body)
    text = "\n".join(["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
                      "<title>bloomlab: experiments</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
                      "<h1>bloomlab experiments</h1>",
                      "<p>One page per experiment (<code>bloomlab report results/NAME.csv</code>); the report that "
                      "checks the lecture's and the course page's numbers is REPORT.md.</p>",
                      "<table><thead><tr><th>experiment</th><th>scale</th><th>cells</th>"
                      f"<th>flagged (|z| &gt; {Z_FLAG:g})</th></tr></thead><tbody>{rows}</tbody></table>",
                      "</body>", "</html>", ""])
    path = os.path.join(directory, "index.html")
    write_all({path: text})
    return [path]


USAGE = "usage: bloomlab report CSV [-o DIR] | --index DIR"


def parse(argv):
    """(mode, path, out_dir) from the arguments, or BadInput."""
    mode, path, out_dir, i = "page", None, None, 0
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "--index"):
            if i + 1 >= len(argv):
                raise BadInput(f"{a}: a directory is missing")
            if a == "-o":
                out_dir = argv[i + 1]
            else:
                mode, path = "index", argv[i + 1]
            i += 2
            continue
        if a.startswith("-"):
            raise BadInput(f"unknown option '{a}' ({USAGE})")
        if path is not None:
            raise BadInput(f"one CSV at a time ('{path}' and '{a}')")
        path, i = a, i + 1
    if path is None:
        raise BadInput(f"no CSV given ({USAGE})")
    if mode == "index" and out_dir is not None:
        raise BadInput("--index writes DIR/index.html; -o does not apply")
    return mode, path, out_dir


def main(argv):
    try:
        mode, path, out_dir = parse(argv)
        written = index(path) if mode == "index" else page(path, out_dir)
    except BadInput as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
