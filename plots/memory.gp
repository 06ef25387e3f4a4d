# memory.gp -- the lecture's first figure: memory against n.
# Lines: an exact set at 64 bytes a URL (the lecture's "kind estimate"),
# a Bloom filter at 10 bits a URL, the machine's 8 GB.  Points (right):
# measured by `bloomlab memory` -- the RSS growth of a GLib GHashTable of
# the synthetic URLs and of bloomlab's filter -- and the measured hash
# table's bytes per URL extended as a dotted line.
csv = "../results/memory.csv"
set datafile separator comma
set datafile columnheaders
exact(n) = 64*n/1e9
bloom(n) = 10*n/8/1e9
is(s) = strcol("structure") eq s
stats csv u (is("ghashtable") ? column("bytes_per_item") : NaN) nooutput
ght_mean = STATS_mean   # bytes per URL, the mean over the measured n
cross_exact = 8e9/64
cross_ght = 8e9/ght_mean

do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1300,600 enhanced font "DejaVu Sans,11" }
  else { set terminal svg size 1300,600 dynamic enhanced font "DejaVu Sans,11" }
  set output "memory.".fmt
  unset logscale
  set format x "%g"; set format y "%g"
  set multiplot layout 1,2 title "Memory of an exact set against a Bloom filter of the same URLs"
  unset label; unset arrow
  set title "the lecture's picture, n up to a billion"
  set xlabel "n, URLs (millions)"
  set ylabel "memory (GB, 10^9 bytes)"
  set xrange [0:1000]; set yrange [0:70]
  set xtics 100; set ytics 8; set grid
  set key top left box opaque
  set arrow 1 from cross_exact/1e6,0 to cross_exact/1e6,8 nohead dt 3 lc rgb "#b00000"
  set label 1 "crosses 8 GB at 125 million URLs" at cross_exact/1e6+15,11 tc rgb "#b00000"
  set label 2 "a billion: 64 GB" at 980,64 right tc rgb "#cc3333"
  set label 3 "a billion: 1.25 GB, fifty times smaller" at 980,3.5 right tc rgb "#1f4e9c"
  plot exact(x*1e6) w l lw 2.5 lc rgb "#cc3333" t "exact set, 64 bytes a URL", \
       bloom(x*1e6) w l lw 2.5 lc rgb "#1f4e9c" t "Bloom filter, 10 bits a URL", \
       8 w l lw 2 dt 2 lc rgb "#000000" t "the machine: 8 GB", \
       "+" u (cross_exact/1e6):(8) every ::0::0 w p pt 7 ps 1.5 lc rgb "#b00000" t "125 million"
  unset label; unset arrow
  set title sprintf("measured on this machine (synthetic URLs, mean %s bytes)", system("grep -m1 '^# mean_key_bytes' ".csv." | cut -d' ' -f3"))
  set xlabel "n, URLs"
  set ylabel "memory (GB, log scale)"
  set xrange [5e4:2e9]; set yrange [1e-7:200]
  set logscale xy
  set format x "10^{%T}"; set format y "10^{%T}"
  set xtics auto; set ytics auto
  set key bottom right box opaque
  set arrow 1 from cross_ght,1e-7 to cross_ght,8 nohead dt 3 lc rgb "#e07b00"
  set label 1 sprintf("GHashTable at %.0f B a URL crosses 8 GB at %.0f million", ght_mean, cross_ght/1e6) at 7e4,30 tc rgb "#e07b00"
  plot exact(x) w l lw 2 lc rgb "#cc3333" t "64 bytes a URL (lecture)", \
       bloom(x) w l lw 2 lc rgb "#1f4e9c" t "10 bits a URL", \
       8 w l lw 2 dt 2 lc rgb "#000000" t "8 GB", \
       ght_mean*x/1e9 w l lw 1.5 dt 3 lc rgb "#e07b00" t sprintf("measured GHashTable cost extended: %.0f B a URL", ght_mean), \
       csv u (is("ghashtable") ? column("n") : NaN):(column("bytes")/1e9) w p pt 7 ps 1.2 lc rgb "#e07b00" t "measured: GLib GHashTable of the URLs (RSS)", \
       csv u (is("bloom") ? column("n") : NaN):(column("bytes")/1e9) w p pt 5 ps 1.1 lc rgb "#1f4e9c" t "measured: bloomlab's filter, 10 bits a URL (RSS)"
  unset multiplot
}
