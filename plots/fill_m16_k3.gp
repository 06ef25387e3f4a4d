# fill_m16_k3.gp -- the lecture's 16-bit row, k = 3: fraction of bits set
# against n.  Lines: 1 - e^(-kn/m) (the curve the lecture draws) and the
# exact expectation 1 - (1 - 1/m)^(kn).  Points: the measured mean over
# many trials, bars +-1 trial-to-trial standard deviation (fill_sd): the
# spread a single 16-bit row shows.  Marks: the lecture's numbers.
csv = "../results/fill_m16_k3.csv"
set datafile separator comma
set datafile columnheaders
m = 16.0; k = 3.0
classic(n) = 1 - exp(-k*n/m)
exact(n) = 1 - (1 - 1/m)**(k*n)
is(s) = strcol("scheme") eq s

do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1000,650 enhanced font "DejaVu Sans,11" }
  else { set terminal svg size 1000,650 dynamic enhanced font "DejaVu Sans,11" }
  set output "fill_m16_k3.".fmt
  set title "Fraction of bits set in a 16-bit filter with k = 3 (lecture's toy row); 20000 trials per point"
  set xlabel "n, items inserted"
  set ylabel "fraction of the 16 bits set"
  set xrange [-0.3:16.3]; set yrange [0:1.05]
  set xtics 1; set ytics 0.1; set grid
  set key bottom right box opaque
  set samples 400
  unset label; unset arrow
  set label 1 "lecture: \"about 43%\" at n = 3" at 3.4,0.36 left tc rgb "#b00000"
  set label 2 "lecture's example: 8 of 16 bits at n = 3" at 3.4,0.56 left tc rgb "#b00000"
  set label 3 "lecture: \"nearly 90%\" at n = 12" at 16,0.68 right tc rgb "#b00000"
  set arrow 1 from 13,0.70 to 12.1,0.885 lw 1 lc rgb "#b00000"
  plot classic(x) w l lw 2 lc rgb "#1f4e9c" t "1 - e^{-kn/m} (lecture's formula)", \
       exact(x) w l lw 2 dt 2 lc rgb "#2a9d2a" t "exact 1 - (1 - 1/m)^{kn}", \
       csv u (is("ideal") ? column("n")-0.12 : NaN):"fill":(column("fill")-column("fill_sd")):(column("fill")+column("fill_sd")) \
           w yerrorbars pt 7 ps 0.8 lc rgb "#444444" t "measured, ideal oracle: mean ± 1 sd", \
       csv u (is("double") ? column("n")+0.12 : NaN):"fill":(column("fill")-column("fill_sd")):(column("fill")+column("fill_sd")) \
           w yerrorbars pt 5 ps 0.7 lc rgb "#e07b00" t "measured, xxh3\\_64 + double hashing: mean ± 1 sd", \
       "+" u (3):(0.43) every ::0::0 w p pt 9 ps 2 lc rgb "#b00000" t "numbers the lecture states", \
       "+" u (3):(0.5) every ::0::0 w p pt 8 ps 2 lc rgb "#b00000" notitle, \
       "+" u (12):(0.9) every ::0::0 w p pt 9 ps 2 lc rgb "#b00000" notitle
}
