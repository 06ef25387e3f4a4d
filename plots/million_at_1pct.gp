# million_at_1pct.gp -- the course page's sizing example: a million items
# at p = 1%.  Lines: (1 - e^(-7 n/m))^7 (k = 7, the page's choice) and the
# real-valued optimum 0.6185^(m/n).  Points: measured FPR at 6..14 bits per
# item (k = 7) and at the design size m = 9,585,059 (both with 95% Wilson
# intervals).  Top axis: the filter's size in MB for n = 10^6.
csv = "../results/million_at_1pct.csv"
set datafile separator comma
set datafile columnheaders
ln2 = log(2)
c7(b) = (1 - exp(-7/b))**7
optimal(b) = 0.5**(b*ln2)
is(s) = strcol("scheme") eq s
design = "(column('m') == 9585059)"
b_design = -log(0.01)/ln2**2

do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1000,650 enhanced font "DejaVu Sans,11" }
  else { set terminal svg size 1000,650 dynamic enhanced font "DejaVu Sans,11" }
  set output "million_at_1pct.".fmt
  set title "A million items at 1%: m/n = -ln p / (ln 2)^2 = 4.605 / 0.4805 = 9.585 bits per item, k = 7"
  set xlabel "m/n, bits per item (n = 10^6)"
  set ylabel "false-positive rate (log scale)"
  unset x2label
  set logscale y
  set xrange [5.5:14.5]; set yrange [1e-3:0.1]
  set x2range [5.5/8:14.5/8]
  set xtics 1; set x2tics 0.125 format "%.3g MB"
  set ytics ("0.1%%" 0.001, "0.2%%" 0.002, "0.5%%" 0.005, "1%%" 0.01, "2%%" 0.02, "5%%" 0.05, "10%%" 0.1)
  set grid
  set key bottom left box opaque
  unset label; unset arrow
  set arrow 1 from 5.5,0.01 to 14.5,0.01 nohead dt 3 lc rgb "#b00000"
  set arrow 2 from b_design,1e-3 to b_design,0.1 nohead dt 3 lc rgb "#b00000"
  set label 1 "page: 9.6 bits per item, about 9.6 million bits, 1.2 MB;\nk = 9.6 ln 2 = 6.6, so 7 hash functions.\nStoring a million 20-byte keys: 20 MB" at 9.8,0.045 tc rgb "#b00000"
  plot c7(x) w l lw 2 lc rgb "#1f4e9c" t "(1 - e^{-7n/m})^7", \
       optimal(x) w l lw 1.5 dt 2 lc rgb "#2a9d2a" t "0.6185^{m/n} (real-valued best k)", \
       csv u (is("double") && !@design ? column("bits_per_item") : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 5 ps 0.8 lc rgb "#e07b00" t "measured, xxh3\\_64 + double, k = 7 (95% interval)", \
       csv u (is("double") && @design ? column("bits_per_item")+0.06 : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 4 ps 1.4 lw 1.5 lc rgb "#e07b00" t "measured at m = 9,585,059, xxh3\\_64 + double", \
       csv u (is("ideal") && @design ? column("bits_per_item")-0.06 : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 6 ps 1.4 lw 1.5 lc rgb "#444444" t "measured at m = 9,585,059, ideal oracle", \
       "+" u (b_design):(0.01) every ::0::0 w p pt 9 ps 2 lc rgb "#b00000" t "the page's design point: p = 1% at 9.585 bits"
}
