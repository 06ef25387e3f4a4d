# doubling.gp -- the course page's "doubling the bits".
# Left: n = 16, k = 3, FPR against m; lines (1 - e^(-kn/m))^k and the
# finite-m (1 - (1 - 1/m)^(kn))^k; points measured at m = 64 and 128, bars
# 95% Wilson intervals; the page's 0.147 and 0.031 marked.
# Right: kn/m held at 0.75 (n = m/4) from m = 16 to 2^20: the approximation
# is one number, 0.1469, the exact E[(X/m)^k] (fpr_exact column) is above it
# at small m, where bit counts fluctuate.
csv = "../results/doubling.csv"
set datafile separator comma
set datafile columnheaders
k = 3.0; n = 16.0
classic(m) = (1 - exp(-k*n/m))**k
finite(m) = (1 - (1 - 1/m)**(k*n))**k
is(s) = strcol("scheme") eq s
# the [page] section's rows are the ones with 10^4 (full scale 10^5) trials
pagerow = "(column('trials') == 10000 || column('trials') == 100000)"
page(s) = is(s) && @pagerow
ratio(s) = is(s) && column("n")*4 == column("m") && !@pagerow
$PAGE << EOD
m,fpr
64,0.147
128,0.031
EOD

do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1200,600 enhanced font "DejaVu Sans,11" }
  else { set terminal svg size 1200,600 dynamic enhanced font "DejaVu Sans,11" }
  set output "doubling.".fmt
  set multiplot layout 1,2 title "Doubling the bits (k = 3): only n/m matters in the approximation"
  unset label; unset arrow
  set title "n = 16 words: 64 bits against 128 bits"
  set xlabel "m, bits in the filter"
  set ylabel "false-positive rate"
  set logscale x 2
  set xrange [32:256]; set yrange [0.01:0.5]
  set logscale y
  set xtics (32, 48, 64, 96, 128, 192, 256)
  set ytics (0.01, 0.02, 0.031, 0.05, 0.1, 0.147, 0.2, 0.3, 0.5); set grid
  set key bottom left box opaque
  set label 1 "page: 0.147 at 64 bits" at 68,0.2 tc rgb "#b00000"
  set label 2 "page: 0.031 at 128 bits,\nthe same as 8 words in 64" at 96,0.06 tc rgb "#b00000"
  plot classic(x) w l lw 2 lc rgb "#1f4e9c" t "(1 - e^{-kn/m})^k", \
       finite(x) w l lw 1.5 dt 2 lc rgb "#2a9d2a" t "(1 - (1 - 1/m)^{kn})^k", \
       csv u (page("ideal") ? column("m")*0.98 : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 7 ps 0.9 lc rgb "#444444" t "measured, ideal oracle (10^4 trials)", \
       csv u (page("double") ? column("m")*1.02 : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 5 ps 0.8 lc rgb "#e07b00" t "measured, xxh3\\_64 + double (10^4 trials)", \
       $PAGE u 1:2 w p pt 9 ps 2 lc rgb "#b00000" t "the page's numbers"
  unset label; unset arrow
  set title "n = m/4 (kn/m = 0.75) from 16 bits to 2^{20} bits"
  unset logscale y
  set xrange [11:1.5e6]; set yrange [0.140:0.175]
  set xtics 4 format "2^{%L}"
  set ytics 0.005
  set key top right
  plot (1 - exp(-0.75))**3 w l lw 2 lc rgb "#1f4e9c" t "(1 - e^{-0.75})^3 = 0.1469: the approximation", \
       csv u (ratio("ideal") ? column("m") : NaN):"fpr_exact" w l lw 1.5 dt 2 lc rgb "#2a9d2a" t "exact E[(X/m)^k]", \
       csv u (ratio("ideal") ? column("m")*0.93 : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 7 ps 0.9 lc rgb "#444444" t "measured, ideal oracle", \
       csv u (ratio("double") ? column("m")*1.07 : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 5 ps 0.8 lc rgb "#e07b00" t "measured, xxh3\\_64 + double hashing"
  unset multiplot
}
