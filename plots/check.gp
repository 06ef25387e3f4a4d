# check.gp -- the figure of `bloomlab check`: the false-positive rate against
# the load (n/4, n/2, n, 2n, 4n), measured with its 95% interval, and the
# formula the filter is held to (a plugin's own, a layout's exact one, else
# the classic one at its m and k), from the CSV `bloomlab check -o` writes.
# Columns are read by their header names (load, value, fpr_lo, fpr_hi,
# reference), never by position; rows without a load are not drawn.
#
#   bloomlab check plugin:./mine.so -o check.csv
#   gnuplot -e "csv='check.csv'; out='check.png'" plots/check.gp
#
# Variables (-e): csv, out (a .png, or a .svg), fig_title (optional).

if (!exists("csv") || !exists("out")) {
    print "check.gp: set csv and out with -e"
    exit status 2
}
if (!exists("fig_title")) fig_title = csv

set datafile separator comma
set datafile columnheaders
# a load row's value of col, or NaN (not drawn) for the other rows
at(col) = strcol("load") eq "" ? NaN : column(col)

if (out[strlen(out) - 3:] eq "svg") {
    set terminal svg size 820,560 fixed noenhanced font "Sans,11" background "white"
} else {
    set terminal pngcairo size 820,560 noenhanced font "Sans,11"
}
set output out
set title fig_title
set xlabel "load (keys inserted)"
set ylabel "false-positive rate"
set logscale x 2
set logscale y
set format y "%g"
set grid
set key top left box opaque
set offsets graph 0.03, graph 0.03, 0, 0
plot csv using (at("load")):(at("value")):(at("fpr_lo")):(at("fpr_hi")) with yerrorbars lc 1 pt 7 ps 0.8 title "measured (95% interval)", \
     csv using (at("load")):(at("reference")) with linespoints lc 2 lw 1.5 dt 2 pt 6 title "formula"
