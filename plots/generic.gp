# generic.gp -- one figure of any sweep CSV: measured FPR against one axis,
# its 95% interval as error bars, the formula as a line, one colour per
# series.  Columns are read by their header names, never by position, so
# any CSV `bloomlab sweep` or `bloomlab run` writes will do.  Drawn for the
# experiment pages (`bloomlab report`, scripts/experiment_page.py), which
# choose the axis and the series; by hand:
#
#   gnuplot -e "csv='results/fpr_vs_k.csv'; out='f.svg'; xcol='k'; \
#               keycols='filter scheme'; series='standard|ideal standard|double'" plots/generic.gp
#
# Variables (-e):
#   csv       the CSV (its '#' metadata lines are comments to gnuplot)
#   out       the SVG to write
#   xcol      the column on the x axis: k, m, n or bits_per_item
#   keycols   the columns that name a series, space-separated
#   series    the series to draw: each the keycols' values joined by '|';
#             space-separated, a value with spaces in double quotes
#   titles    optional: their legend texts, in the same order (default: the
#             series with ' ' for '|')
#   formula   optional: the formula column drawn as the line (default fpr_exact)
#   logx, logy  optional: 1 for a log axis (default 0 and 1)
#   fig_title  optional (name the x axis in it: the axis has no label)

if (!exists("csv") || !exists("out") || !exists("xcol") || !exists("keycols") || !exists("series")) {
    print "generic.gp: set csv, out, xcol, keycols and series with -e"
    exit status 2
}
if (!exists("titles")) titles = ""
if (!exists("formula")) formula = "fpr_exact"
if (!exists("logx")) logx = 0
if (!exists("logy")) logy = 1
if (!exists("fig_title")) fig_title = csv

set datafile separator comma
set datafile columnheaders
# A row's series: its keycols' values joined by '|' (recursive over the list).
rowkey(i) = i > words(keycols) ? "" : strcol(word(keycols, i)) . (i < words(keycols) ? "|" : "") . rowkey(i + 1)
in_series(i) = rowkey(1) eq word(series, i)
# A point of series i, or NaN (not drawn) for another series' row or an empty cell.
at(i, col) = in_series(i) ? (strcol(col) eq "" ? NaN : column(col)) : NaN
legend(i) = words(titles) >= i ? word(titles, i) : word(series, i)

set terminal svg size 820,560 fixed noenhanced font "Sans,11" background "white"
set output out
set title fig_title
# No x label: below the plot it would collide with the key (gnuplot 5.4);
# the title names the axis.
unset xlabel
set ylabel "false-positive rate"
if (logx) { set logscale x }
if (logy) { set logscale y }
set grid
set key below left Left reverse maxcols 2 box opaque
# a margin left and right so that the end points and their bars show
set offsets graph 0.03, graph 0.03, 0, 0
# Points: measured, with their 95% interval; lines: the formula, one per
# series in the same colour (smooth unique: in x order, whatever the rows').
points = 'for [i = 1:words(series)] csv using (at(i, xcol)):(at(i, "fpr")):(at(i, "fpr_lo")):(at(i, "fpr_hi")) with yerrorbars lc i pt 7 ps 0.7 title legend(i)'
lines = 'for [i = 1:words(series)] csv using (at(i, xcol)):(at(i, formula)) smooth unique with lines lc i lw 1.5 dt 2 title (i == 1 ? formula . " (dashed)" : "")'
if (formula eq "") { plot @points } else { plot @points, @lines }
unset output
