# deletion.gp -- deleting from a Bloom filter.
# Left: false-negative rate of the items still present after deleting d
# of n = 1e5 (m = 1e6 bits, k = 7).  Plain filter: clearing a deleted
# item's k bits clears bits that others share; a remaining item loses one
# of its k bits with probability about 1 - (1 - 1/m)^(k^2 d) (each of its k
# bits is hit by one of the k d cleared positions).  Bars: 95% Wilson
# intervals of false_negatives / present_queries.  The counting filter
# (4-bit counters) has no false negative at any d: drawn on the floor.
# Right: memory of the two filters (memory_bytes column).
csv = "../results/deletion.csv"
set datafile separator comma
set datafile columnheaders
m = 1e6; k = 7.0
fn_theory(d) = 1 - (1 - 1/m)**(k*k*d)
z = 1.959963985
wil_c(x, t) = (x/t + z*z/(2*t)) / (1 + z*z/t)
wil_h(x, t) = z*sqrt(x/t*(1 - x/t)/t + z*z/(4*t*t)) / (1 + z*z/t)
fnr = "column('false_negatives')/column('present_queries')"
lo = "wil_c(column('false_negatives'), column('present_queries')) - wil_h(column('false_negatives'), column('present_queries'))"
hi = "wil_c(column('false_negatives'), column('present_queries')) + wil_h(column('false_negatives'), column('present_queries'))"
is(s) = strcol("filter") eq s
floor_y = 2e-6

do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1200,600 enhanced font "DejaVu Sans,11" }
  else { set terminal svg size 1200,600 dynamic enhanced font "DejaVu Sans,11" }
  set output "deletion.".fmt
  set multiplot layout 1,2 title "Deleting by clearing bits breaks the one guarantee (n = 10^5, 10 bits per item, k = 7, xxh3\\_64 + double; 10 trials)"
  set origin 0,0; set size 0.62,0.95
  unset label; unset arrow
  set title "items still present that the filter calls \"definitely absent\""
  set xlabel "d, items deleted (of 10^5)"
  set ylabel "false-negative rate (log scale)"
  set logscale xy
  set xrange [0.7:1.4e5]; set yrange [1e-6:2]
  set format y "10^{%T}"; set format x "10^{%T}"
  set grid
  set key top left box opaque
  set label 1 "counting filter: 0 false negatives at every d (drawn at the floor)" at 1.2,4e-6 tc rgb "#2a6f2a"
  plot fn_theory(x) w l lw 2 lc rgb "#1f4e9c" t "1 - (1 - 1/m)^{k^2 d}", \
       csv u (is("standard") ? column("deletes") : NaN):(@fnr):(@lo):(@hi) w yerrorbars pt 5 ps 0.9 lc rgb "#e07b00" t "plain filter, bits cleared (95% interval)", \
       csv u (is("counting") ? column("deletes") : NaN):(column("false_negatives") == 0 ? floor_y : @fnr) w p pt 7 ps 1 lc rgb "#2a9d2a" t "counting filter, 4-bit counters"
  unset logscale; unset label
  set origin 0.62,0; set size 0.38,0.95
  set title "memory of the filter"
  set xlabel ""
  set ylabel "kilobytes"
  set format y "%g"; set format x "%g"
  set xrange [-0.6:1.6]; set yrange [0:600]
  set xtics ("plain (1 bit)" 0, "counting (4-bit)" 1)
  set ytics 100
  set style fill solid 0.7 border -1
  set boxwidth 0.6
  set key off
  set label 2 "lecture: \"four times bigger\"" at 0.5,570 center tc rgb "#b00000"
  plot csv u (is("standard") && column("deletes") == 1 ? 0 : NaN):(column("memory_bytes")/1000.0) w boxes lc rgb "#e07b00", \
       csv u (is("counting") && column("deletes") == 1 ? 1 : NaN):(column("memory_bytes")/1000.0) w boxes lc rgb "#2a9d2a", \
       csv u (is("standard") && column("deletes") == 1 ? 0 : NaN):(column("memory_bytes")/1000.0 + 20):(sprintf("%.0f KB", column("memory_bytes")/1000.0)) w labels, \
       csv u (is("counting") && column("deletes") == 1 ? 1 : NaN):(column("memory_bytes")/1000.0 + 20):(sprintf("%.0f KB", column("memory_bytes")/1000.0)) w labels
  unset multiplot
}
