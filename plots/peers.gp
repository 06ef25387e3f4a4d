# peers.gp -- bloomlab against the peer filters (make bench-peers), from
# ../results/peers.csv: ns per operation against n, one line per system and
# vector level, the floor (lines touched x the machine's random-line
# ceiling) dashed.  Rows: standard (10 bits/key, k = 7), split block (10.67
# bits/key, k = 8); columns: insert, absent query, present query.
set datafile separator ","
set terminal pngcairo size 1500,900 font ",10"
set output "peers.png"
csv = "../results/peers.csv"
cpu = system("sed -n 's/^# cpu: //p' " . csv)
set multiplot layout 2,3 title "bloomlab against its peers, ns per operation (minimum of the rounds), " . cpu
set logscale xy
set xlabel "n (keys)"
set ylabel "ns per op"
set key top left font ",8"
set grid
series(p, o) = system(sprintf("grep -v '^#' %s | awk -F, '$11==\"%s\" && $6==\"%s\" {print $12}' | sort -u | tr '\\n' ' '", csv, p, o))
pick(p, o, s) = (strcol(11) eq p && strcol(6) eq o && strcol(12) eq s) ? $7 : NaN
do for [p in "standard splitblock"] {
  do for [o in "insert absent present"] {
    set title sprintf("%s: %s", p, o)
    list = series(p, o)
    plot for [s in list] csv using 5:(pick(p, o, s)) with linespoints \
         dt 1 + (s eq "floor") lw 1 + (s eq "floor") title s
  }
}
unset multiplot
