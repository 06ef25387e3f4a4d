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
    plot for [s in list] rows(p, o, s) using 1:2 with linespoints \
         dt 1 + (s eq "floor") lw 1 + (s eq "floor") title s
  }
}
unset multiplot
