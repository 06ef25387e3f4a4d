# crawler.gp -- the lecture's crawler, measured: 10 bits per URL, k = 7,
# synthetic crawler URLs (1e7 in the default run; the full scale's 1e9
# from results/full/crawler.csv is drawn too when it exists).
# Left: measured FPR with its 95% interval against (1 - e^(-0.7))^7 and
# the lecture's "eight in a thousand".  Middle: memory for a billion URLs
# (the filter's memory_bytes scaled to n = 1e9, against 64 bytes a URL).
# Right: URLs of a billion wrongly called "seen" (fpr x 1e9).
csv = "../results/crawler.csv"
full = "../results/full/crawler.csv"
has_full = system("test -f ".full." && echo 1 || echo 0") + 0
set datafile separator comma
set datafile columnheaders
theory = (1 - exp(-0.7))**7
stats csv u "fpr" nooutput
fpr_q = STATS_min
stats csv u "fpr_lo" nooutput
lo_q = STATS_min
stats csv u "fpr_hi" nooutput
hi_q = STATS_min
stats csv u (column("memory_bytes")*1e9/column("n")) nooutput
bytes_per_billion = STATS_min
stats csv u "n" nooutput
n_q = STATS_min
stats csv u "ns_insert" nooutput
ns_ins = STATS_min
stats csv u "ns_query" nooutput
ns_q = STATS_min
if (has_full) {
  stats full u "fpr" nooutput
  fpr_f = STATS_min
  stats full u "fpr_lo" nooutput
  lo_f = STATS_min
  stats full u "fpr_hi" nooutput
  hi_f = STATS_min
  stats full u "n" nooutput
  n_f = STATS_min
}
set print $FPR
print "x,fpr,lo,hi,name"
print sprintf("0,%.9g,%.9g,%.9g,measured n = %.0e", fpr_q, lo_q, hi_q, n_q)
if (has_full) { print sprintf("1,%.9g,%.9g,%.9g,measured n = %.0e", fpr_f, lo_f, hi_f, n_f) }
unset print

do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1300,560 enhanced font "DejaVu Sans,11" }
  else { set terminal svg size 1300,560 dynamic enhanced font "DejaVu Sans,11" }
  set output "crawler.".fmt
  set multiplot layout 1,3 title sprintf("The crawler: 10 bits per URL, k = 7, xxh3\\_64 + double hashing on synthetic URLs; %.0f ns to insert and %.0f ns to ask per URL (this run)", ns_ins, ns_q)
  unset label; unset arrow
  set title "false-positive rate"
  set ylabel "false-positive rate (%)"
  set xrange [-0.7:(has_full ? 1.7 : 0.7)]; set yrange [0.78:0.86]
  set xtics () ; set xtics add ("10^7 URLs" 0)
  if (has_full) { set xtics add ("10^9 URLs (full)" 1) }
  set ytics 0.01; set grid ytics
  set key bottom center box opaque
  plot theory*100 w l lw 2 lc rgb "#1f4e9c" t "(1 - e^{-0.7})^7 = 0.819%", \
       0.8 w l lw 2 dt 2 lc rgb "#b00000" t "lecture: eight in a thousand", \
       $FPR u 1:($2*100):($3*100):($4*100) w yerrorbars pt 7 ps 1.2 lw 1.5 lc rgb "#e07b00" t "measured (95% interval)"
  set title "memory for a billion URLs"
  set ylabel "gigabytes (log scale)"
  set logscale y
  set yrange [0.5:200]
  set xrange [-0.6:1.6]
  set xtics ("exact set, 64 B/URL" 0, "Bloom, 10 bits/URL" 1)
  set ytics (0.5, 1, 2, 5, 10, 20, 50, 100, 200)
  set style fill solid 0.7 border -1
  set boxwidth 0.6
  set key off
  set label 1 "64 GB" at 0,80 center
  set label 2 sprintf("%.2f GB", bytes_per_billion/1e9) at 1,1.6 center
  set label 3 "lecture: 64 GB and\n\"a gigabyte and a quarter\":\nfifty times smaller" at 1.05,12 center front tc rgb "#b00000"
  plot "+" u (0):(64) every ::0::0 w boxes lc rgb "#cc3333", \
       "+" u (1):(bytes_per_billion/1e9) every ::0::0 w boxes lc rgb "#1f4e9c"
  unset logscale y; unset label
  set ytics auto
  set title "never-fetched URLs called \"seen\", per billion"
  set ylabel "millions of URLs"
  set yrange [0:10]; set ytics 1
  set xrange [-0.6:(has_full ? 2.6 : 1.6)]
  set xtics ("lecture" 0, "measured, 10^7" 1)
  if (has_full) { set xtics add ("measured, 10^9" 2) }
  plot "+" u (0):(8) every ::0::0 w boxes lc rgb "#b00000", \
       $FPR u ($1+1):($2*1000) w boxes lc rgb "#e07b00", \
       $FPR u ($1+1):($2*1000):($3*1000):($4*1000) w yerrorbars pt 0 lw 1.5 lc rgb "#000000", \
       $FPR u ($1+1):($2*1000+0.6):(sprintf("%.2f million", $2*1000)) w labels, \
       "+" u (0):(8.6):("about 8 million") every ::0::0 w labels
  unset multiplot
}
