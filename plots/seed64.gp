# seed64.gp -- the course page's traced run against its distribution.
# Dots: the page's own run (results/seed64.csv, `bloomlab demo --table`):
# the first N of its 20 words in its 64-bit filter, k = 3, FNV-1a 32 and
# positions a + i b mod 64.  Line: the page's formula.  Band: the same
# filter over 2000 random sets of dictionary words per N
# (results/seed64_words.csv): mean +- 1 standard deviation from run to run.
page = "../results/seed64.csv"
many = "../results/seed64_words.csv"
set datafile separator comma
set datafile columnheaders
m = 64.0; k = 3.0
fill(n) = 1 - exp(-k*n/m)
bits(n) = m*fill(n)
maybe(n) = 20*fill(n)**k
binsd(n) = sqrt(20*fill(n)**k*(1 - fill(n)**k))
# run-to-run sd of the count of "maybe" out of 20: fpr_se is the standard
# error of the mean over trials, so the per-run sd is fpr_se * sqrt(trials)
runsd = "column('fpr_se')*sqrt(column('trials'))*20"

do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1200,600 enhanced font "DejaVu Sans,11" }
  else { set terminal svg size 1200,600 dynamic enhanced font "DejaVu Sans,11" }
  set output "seed64.".fmt
  set multiplot layout 1,2 title "The course page's 64-bit filter (k = 3, FNV-1a, positions a + ib mod 64): its one traced run against 2000 random word sets"
  unset label; unset arrow
  set title "bits set after N words"
  set xlabel "N, words added"
  set ylabel "bits set, of 64"
  set xrange [0.5:20.5]; set yrange [0:50]
  set xtics 1; set ytics 5; set grid
  set key top left box opaque
  set style fill transparent solid 0.25 noborder
  set label 1 "page: 22 set at 8 words,\nformula about 20" at 8.6,14 tc rgb "#b00000"
  set arrow 1 from 8.5,15 to 8.05,21.3 lc rgb "#b00000"
  set label 2 "page: 34 at 20 words,\nagainst about 39" at 19.8,25 right tc rgb "#b00000"
  set arrow 2 from 19.5,28.5 to 19.95,33.4 lc rgb "#b00000"
  plot many u "n":(64*(column("fill")-column("fill_sd"))):(64*(column("fill")+column("fill_sd"))) w filledcurves lc rgb "#e07b00" t "random word sets: mean ± 1 sd", \
       many u "n":(64*column("fill")) w l lw 1.5 lc rgb "#e07b00" t "random word sets: mean", \
       bits(x) w l lw 2 lc rgb "#1f4e9c" t "formula 64 (1 - e^{-3N/64})", \
       page u "words":"bits_set" w p pt 7 ps 1.1 lc rgb "#000000" t "the page's run (its 20 words)"
  unset label; unset arrow
  set title "absent test words (of 20) that say \"maybe\""
  set ylabel "false positives, of 20 test words"
  set yrange [-0.5:10]; set ytics 1
  set label 1 "page: 0.6 of 20 predicted\nat 8 words, 0 measured" at 3,2.2 tc rgb "#b00000"
  set arrow 1 from 6,1.3 to 7.9,0.7 lc rgb "#b00000"
  set label 3 "page: \"every dot sits below the line\"" at 1.5,5.5 tc rgb "#b00000"
  set label 2 "page: 4.5 of 20 predicted at 20 words,\n3 measured; sd about 1.9" at 19.8,7.3 right tc rgb "#b00000"
  plot many u "n":(20*column("fpr")-@runsd):(20*column("fpr")+@runsd) w filledcurves lc rgb "#e07b00" t "random word sets: mean ± 1 sd", \
       many u "n":(20*column("fpr")) w l lw 1.5 lc rgb "#e07b00" t "random word sets: mean", \
       maybe(x) w l lw 2 lc rgb "#1f4e9c" t "formula 20 (1 - e^{-3N/64})^3", \
       "+" u (20.2):(maybe(20)):(maybe(20)-binsd(20)):(maybe(20)+binsd(20)) every ::0::0 w yerrorbars pt 9 ps 1.5 lc rgb "#b00000" t "4.5 ± 1.9 (binomial, page)", \
       page u "words":"maybe" w p pt 7 ps 1.1 lc rgb "#000000" t "the page's run"
  unset multiplot
}
