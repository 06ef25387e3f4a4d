# optimal_k.gp -- the best k against m/n, and the half-full rule.
# The best k is derived here from results/optimal_k.csv, per budget b:
#   best     the k with the least measured FPR (the smallest such k on a tie)
#   range    every k whose 95% interval reaches below the best one's upper
#            bound: the k the measurement cannot tell from the best
#   theory   the integer k with the least exact FPR (fpr_exact column)
# Left: those against the real-valued optimum (m/n) ln 2.  Right: the
# measured fill at the best k (mean over trials) against 1/2.
csv = "../results/optimal_k.csv"
set datafile separator comma
set datafile columnheaders
set datafile missing ""
ln2 = log(2)
bpi(b) = abs(column("bits_per_item") - b) < 1e-9

set print $BEST
print "b,best,lo,hi,theory,fill_best,fill_theory"
do for [b = 2:24] {
  stats csv u (bpi(b) ? column("fpr") : NaN) nooutput
  best_fpr = STATS_min
  stats csv u ((bpi(b) && column("fpr") == best_fpr) ? column("fpr_hi") : NaN) nooutput
  best_hi = STATS_min
  stats csv u ((bpi(b) && column("fpr") == best_fpr) ? column("k") : NaN) nooutput
  best_k = STATS_min
  stats csv u ((bpi(b) && column("fpr") == best_fpr && column("k") == best_k) ? column("fill") : NaN) nooutput
  fill_best = STATS_min
  stats csv u ((bpi(b) && column("fpr_lo") <= best_hi) ? column("k") : NaN) nooutput
  k_lo = STATS_min; k_hi = STATS_max
  stats csv u (bpi(b) ? column("fpr_exact") : NaN) nooutput
  th_fpr = STATS_min
  stats csv u ((bpi(b) && column("fpr_exact") == th_fpr) ? column("k") : NaN) nooutput
  th_k = STATS_min
  stats csv u ((bpi(b) && column("k") == th_k) ? column("fill_expected") : NaN) nooutput
  fill_th = STATS_min
  print sprintf("%d,%d,%d,%d,%d,%.6f,%.6f", b, best_k, k_lo, k_hi, th_k, fill_best, fill_th)
}
unset print

do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1200,600 enhanced font "DejaVu Sans,11" }
  else { set terminal svg size 1200,600 dynamic enhanced font "DejaVu Sans,11" }
  set output "optimal_k.".fmt
  set multiplot layout 1,2 title "The best number of hash functions (xxh3\\_64 + double hashing, n = 10^4, 10 trials x 10^5 queries per cell)"
  unset label; unset arrow
  set title "best k against the budget"
  set xlabel "m/n, bits per item"
  set ylabel "k, number of hash functions"
  set xrange [1.5:24.5]; set yrange [0:22]
  set xtics 2; set ytics 2; set grid
  set key top left box opaque samplen 2
  set label 3 "swept: k = 1..12 at 2-8 bits, 4..16 at 9-16, 8..22 at 17-24" at 24,1 right tc rgb "#555555"
  set label 1 "lecture: 6.9 at 10 bits, so use 7" at 11,4 tc rgb "#b00000"
  set arrow 1 from 11.5,4.5 to 10.1,6.7 lc rgb "#b00000"
  plot x*ln2 w l lw 2 lc rgb "#1f4e9c" t "(m/n) ln 2", \
       $BEST u ($1-0.1):5 w p pt 4 ps 1.1 lc rgb "#2a9d2a" t "theory: integer k, least exact FPR", \
       $BEST u ($1+0.1):2:3:4 w yerrorbars pt 7 ps 0.9 lc rgb "#e07b00" t "measured best k; bar: k not told apart at 95%", \
       "+" u (10):(6.9) every ::0::0 w p pt 9 ps 2 lc rgb "#b00000" t "lecture: 6.9 at 10 bits per item"
  unset label; unset arrow
  set title "fill at the best k: the half-full rule"
  set ylabel "fraction of bits set"
  set yrange [0.3:0.7]; set ytics 0.05
  set key bottom right
  plot 0.5 w l lw 2 lc rgb "#b00000" t "1/2 (lecture: \"almost exactly half\")", \
       $BEST u 1:7 w lp lw 1 dt 2 pt 6 lc rgb "#2a9d2a" t "expected fill at the integer optimum", \
       $BEST u 1:6 w p pt 7 ps 0.9 lc rgb "#e07b00" t "measured fill at the measured best k"
  unset multiplot
}
