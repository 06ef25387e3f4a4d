# bench.gp -- `make bench` (scripts/bench.sh): speed against filter size,
# xxh3_64 + each layout's default scheme on random64 keys (8 bytes), 10 bits per key, k = 7
# (splitblock 8), one core.  Left to right, top to bottom: ns per absent
# query (dashed: URLs) beside the machine's own ceiling -- ns per dependent
# and per independent random cache-line read of a buffer of the same size;
# ns per insert beside the update ceiling (ns per random bit set, column
# ns_update: one and seven of them, a blocked and a standard insert's worth);
# ns per present query; the fraction of the independent-read
# ceiling an absent query reaches, lines_absent * ns_independent / ns_absent
# (src/commands/bench.h says how lines_absent is computed).
csv = "../results/bench.csv"
set datafile separator comma
set terminal pngcairo size 1500,1000 font ",11"
set output "bench.png"
layouts = "standard counting partitioned blocked512 register64 splitblock"
rows(sec, l, keys) = sprintf("< awk -F, '$1==\"%s\" && $2==\"%s\" && $5==\"%s\"' %s", sec, l, keys, csv)
ceil = sprintf("< awk -F, '$1==\"ceiling\"' %s", csv)
set logscale x 2
set format x "%.0b%B"
set xlabel "filter size (bytes)"
set grid
set key top left font ",9"
do for [pass = 1:2] {
  if (pass == 2) {
    set terminal svg size 1500,1000 font ",11"
    set output "bench.svg"
  }
  set multiplot layout 2,2 title "bloomlab bench: xxh3\\_64 + each layout's default scheme (multiply on blocked512, register64), 10 bits/key, k = 7, one core"
  set logscale y
  set ylabel "ns per absent query"
  plot for [i = 1:6] rows("filter", word(layouts, i), "random64") u 6:14 w lp lc i t word(layouts, i), \
       for [i = 1:6] rows("filter", word(layouts, i), "urls") u 6:14 w l dt 2 lc i notitle, \
       ceil u 6:21 w lp lw 2 lc rgb "black" t "ceiling: independent read", \
       ceil u 6:20 w lp lw 2 dt 3 lc rgb "black" t "dependent read"
  set ylabel "ns per insert"
  plot for [i = 1:6] rows("filter", word(layouts, i), "random64") u 6:13 w lp lc i t word(layouts, i), \
       ceil u 6:($27 * 7) w lp lw 2 lc rgb "black" t "ceiling: 7 random bit sets", \
       ceil u 6:27 w lp lw 2 dt 3 lc rgb "black" t "1 random bit set"
  set ylabel "ns per present query"
  plot for [i = 1:6] rows("filter", word(layouts, i), "random64") u 6:15 w lp lc i t word(layouts, i)
  unset logscale y
  set ylabel "fraction of the independent-read ceiling (absent query)"
  set yrange [0:*]
  plot for [i = 1:6] rows("filter", word(layouts, i), "random64") u 6:24 w lp lc i t word(layouts, i)
  unset yrange
  unset multiplot
}
