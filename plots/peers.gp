# peers.gp -- bloomlab against the peer filters (make bench-peers), from
# ../results/peers.csv: ns per operation against n, one line per system and
# vector level, the floor (lines touched x the machine's random-line
# ceiling) dashed.  Rows: standard (10 bits/key, k = 7), split block (10.67
# bits/key, k = 8); columns: insert, absent query, present query.
set terminal pngcairo size 1500,900 font ",10" noenhanced
set output "peers.png"
csv = "../results/peers.csv"
cpu = system("sed -n 's/^# cpu: //p' " . csv)
set multiplot layout 2,3 title "bloomlab against its peers, ns per operation (minimum of the rounds), " . cpu
set logscale xy
set xrange [5e5:2e8]
set format x "%.0e"
set xlabel "n (keys)"
set ylabel "ns per op"
set key top left font ",8"
set grid
load "columns.gpi"
# more lines than gnuplot's eight default colours (the split block panels
# draw nine systems and the floor): the eighth grey instead of black and
# three more, so that no two share one, and the floor's own, black in
# every panel
set linetype 8 lc rgb "#7f7f7f" pt 8
set linetype 9 lc rgb "#8c564b" pt 10
set linetype 10 lc rgb "#e377c2" pt 11
set linetype 11 lc rgb "#17becf" pt 12
FLOOR_LT = 12
set linetype FLOOR_LT lc rgb "black" pt 9
# the rows of panel p for operation o
in_panel(p, o) = sprintf("col(\"panel\") == \"%s\" && col(\"operation\") == \"%s\"", p, o)
# the series drawn there, space-separated
series(p, o) = system(by_name(in_panel(p, o) . " {print col(\"series\")}", csv) . " | sort -u | tr '\\n' ' '")
# print n, ns of series s there
rows(p, o, s) = "< " . by_name(in_panel(p, o) . sprintf(" && col(\"series\") == \"%s\" {print col(\"n\"), col(\"ns\")}", s), csv) . " | sort -g"
do for [p in "standard splitblock"] {
  do for [o in "insert absent present"] {
    set title sprintf("%s: %s", p, o)
    list = series(p, o)
    plot for [i = 1:words(list)] rows(p, o, word(list, i)) using 1:2 with linespoints \
         lt (word(list, i) eq "floor" ? FLOOR_LT : i) dt 1 + (word(list, i) eq "floor") \
         lw 1 + (word(list, i) eq "floor") title word(list, i)
  }
}
unset multiplot
