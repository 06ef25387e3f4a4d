# fpr_vs_bits.gp -- the lecture's engineer's curve: FPR against bits per
# item at the best integer k.  Lines: 0.6185^(m/n) (the optimum with a real
# k = (m/n) ln 2) and the classic (1 - e^(-k n/m))^k at the best integer k.
# Points: measured FPR with 95% Wilson intervals (k = opt in the experiment).
csv = "../results/fpr_vs_bits.csv"
set datafile separator comma
set datafile columnheaders
ln2 = log(2)
optimal(b) = 0.5**(b*ln2)
cl(b, k) = (1 - exp(-k/b))**k
kf(b) = floor(b*ln2) < 1 ? 1 : floor(b*ln2)
best_int(b) = cl(b, kf(b)) < cl(b, kf(b)+1) ? cl(b, kf(b)) : cl(b, kf(b)+1)
is(s) = strcol("scheme") eq s
$LECTURE << EOD
bits,fpr
8,0.02
10,0.008
14,0.001
20,7e-5
EOD

do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1000,650 enhanced font "DejaVu Sans,11" }
  else { set terminal svg size 1000,650 dynamic enhanced font "DejaVu Sans,11" }
  set output "fpr_vs_bits.".fmt
  set title "False-positive rate against memory, at the best integer k (n = 10^5; up to 4x10^7 queries per point)"
  set xlabel "m/n, bits per item"
  set ylabel "false-positive rate (log scale)"
  set logscale y
  set format y "10^{%T}"
  set xrange [0.5:24.5]; set yrange [5e-6:1]
  set xtics 1; set mytics 10
  set x2tics ("1 byte" 8, "2 bytes" 16, "3 bytes" 24) ; set x2range [0.5:24.5]
  set grid
  set key bottom left box opaque
  set samples 1000
  unset label; unset arrow
  set label 1 "2% at 8" at 8.3,0.03 tc rgb "#b00000"
  set label 2 "0.8% at 10" at 10.3,0.012 tc rgb "#b00000"
  set label 3 "about 0.1% at 14" at 14.3,0.0015 tc rgb "#b00000"
  set label 4 "7 in 100,000 at 20 bits:\nless than 3 bytes an item" at 19.6,4e-5 right tc rgb "#b00000"
  set label 5 "each extra bit multiplies the rate by 0.6185" at 11,0.2 tc rgb "#1f4e9c"
  plot optimal(x) w l lw 2 lc rgb "#1f4e9c" t "0.6185^{m/n} (real-valued k = (m/n) ln 2)", \
       best_int(x) w l lw 1.5 dt 2 lc rgb "#2a9d2a" t "(1 - e^{-kn/m})^k at the best integer k", \
       csv u (is("ideal") ? column("bits_per_item")-0.12 : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 7 ps 0.8 lc rgb "#444444" t "measured, ideal oracle (95% interval)", \
       csv u (is("double") ? column("bits_per_item")+0.12 : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 5 ps 0.7 lc rgb "#e07b00" t "measured, xxh3\\_64 + double hashing (95% interval)", \
       $LECTURE u 1:2 w p pt 9 ps 2 lc rgb "#b00000" t "the lecture's numbers"
}
