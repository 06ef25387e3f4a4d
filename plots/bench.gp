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
load "columns.gpi"
# bytes,y (column y) of the filter section's rows of layout l on key set keys
rows(l, keys, y) = "< " . by_name(sprintf("col(\"section\") == \"filter\" && col(\"filter\") == \"%s\" && col(\"keys\") == \"%s\" {print col(\"bytes\") \",\" col(\"%s\")}", l, keys, y), csv)
# bytes,y of the ceiling rows
ceiling(y) = "< " . by_name(sprintf("col(\"section\") == \"ceiling\" {print col(\"bytes\") \",\" col(\"%s\")}", y), csv)
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
  plot for [i = 1:6] rows(word(layouts, i), "random64", "ns_absent") u 1:2 w lp lc i t word(layouts, i), \
       for [i = 1:6] rows(word(layouts, i), "urls", "ns_absent") u 1:2 w l dt 2 lc i notitle, \
       ceiling("ns_independent") u 1:2 w lp lw 2 lc rgb "black" t "ceiling: independent read", \
       ceiling("ns_dependent") u 1:2 w lp lw 2 dt 3 lc rgb "black" t "dependent read"
  set ylabel "ns per insert"
  plot for [i = 1:6] rows(word(layouts, i), "random64", "ns_insert") u 1:2 w lp lc i t word(layouts, i), \
       ceiling("ns_update") u 1:($2 * 7) w lp lw 2 lc rgb "black" t "ceiling: 7 random bit sets", \
       ceiling("ns_update") u 1:2 w lp lw 2 dt 3 lc rgb "black" t "1 random bit set"
  set ylabel "ns per present query"
  plot for [i = 1:6] rows(word(layouts, i), "random64", "ns_present") u 1:2 w lp lc i t word(layouts, i)
  unset logscale y
  set ylabel "fraction of the independent-read ceiling (absent query)"
  set yrange [0:*]
  plot for [i = 1:6] rows(word(layouts, i), "random64", "fraction_absent") u 1:2 w lp lc i t word(layouts, i)
  unset yrange
  unset multiplot
}
