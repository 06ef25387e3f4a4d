# fpr_vs_k.gp -- the lecture's choice of k at 10 bits per item: FPR against
# k.  Line: the classic (1 - e^(-k/10))^k (the exact finite-m formula is the
# same to 5 digits at m = 1e6).  Points: measured FPR, bars its 95% Wilson
# interval.  Marks: the lecture's stated rates, and the two comparisons it
# makes (10 worse than 7, 14 worse than 3) as dotted level lines.
csv = "../results/fpr_vs_k.csv"
set datafile separator comma
set datafile columnheaders
b = 10.0
classic(k) = (1 - exp(-k/b))**k
is(s) = strcol("scheme") eq s
$LECTURE << EOD
k,fpr
1,0.095
2,0.033
3,0.017
7,0.008
EOD

do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1000,650 enhanced font "DejaVu Sans,11" }
  else { set terminal svg size 1000,650 dynamic enhanced font "DejaVu Sans,11" }
  set output "fpr_vs_k.".fmt
  set title "False-positive rate against k at 10 bits per item (n = 10^5, m = 10^6; 20 trials x 10^5 queries per point)"
  set xlabel "k, number of hash functions"
  set ylabel "false-positive rate (log scale)"
  set logscale y
  set xrange [0.5:20.5]; set yrange [0.006:0.13]
  set xtics 1
  set ytics ("0.6%%" 0.006, "0.8%%" 0.008, "1%%" 0.01, "1.5%%" 0.015, "2%%" 0.02, "3%%" 0.03, "5%%" 0.05, "7%%" 0.07, "10%%" 0.1)
  set grid
  set key top center box opaque
  set samples 400
  unset label; unset arrow
  # the lecture's comparisons: the level of k = 7 reached again past 10, of k = 3 past 14
  set arrow 1 from 7,classic(7) to 10,classic(7) nohead dt 3 lc rgb "#b00000"
  set arrow 2 from 3,classic(3) to 14,classic(3) nohead dt 3 lc rgb "#b00000"
  set label 1 "9.5%" at 1.25,0.095 tc rgb "#b00000"
  set label 2 "3.3%" at 2.25,0.033 tc rgb "#b00000"
  set label 3 "1.7%" at 3.25,0.0185 tc rgb "#b00000"
  set label 4 "under 1% at 5" at 4.6,0.0108 right tc rgb "#b00000"
  set label 5 "0.8% at 7, the best" at 7,0.0072 center tc rgb "#b00000"
  set label 6 "10 is worse than 7" at 10.3,0.0095 left tc rgb "#b00000"
  set label 7 "14 is worse than 3" at 14.3,0.0172 left tc rgb "#b00000"
  set arrow 3 from 5,0.0105 to 5,0.01 lc rgb "#b00000"
  plot classic(x) w l lw 2 lc rgb "#1f4e9c" t "(1 - e^{-kn/m})^k", \
       csv u (is("ideal") ? column("k")-0.12 : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 7 ps 0.8 lc rgb "#444444" t "measured, ideal oracle (95% interval)", \
       csv u (is("double") ? column("k")+0.12 : NaN):"fpr":"fpr_lo":"fpr_hi" w yerrorbars pt 5 ps 0.7 lc rgb "#e07b00" t "measured, xxh3\\_64 + double hashing (95% interval)", \
       $LECTURE u 1:2 w p pt 9 ps 2 lc rgb "#b00000" t "the lecture's numbers"
}
