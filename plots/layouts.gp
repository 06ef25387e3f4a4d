# layouts.gp -- each layout at its own measured best k (ideal scheme, n = 5000):
# FPR against bits per item with its exact formula; the best k against
# (m/n) ln 2; and ns per query at 10 bits/item with xxh3_64 on a larger
# filter (the [speed] grids, each scheme; ns include making the key).
# Run from plots/: gnuplot layouts.gp
csv = '../results/layouts.csv'
load "columns.gpi"
# best k per (filter, bits per item): the k of least measured fpr; print
# bits per item, k, fpr, fpr_se, fpr_exact, fill
best(f) = "< " . by_name(sprintf("col(\"scheme\")==\"ideal\" && col(\"filter\")==\"%s\" {b=int(col(\"bits_per_item\")+0.5); key=b; x=col(\"fpr\"); if(!(key in fpr) || x<fpr[key]){fpr[key]=x; row[key]=b\" \"col(\"k\")\" \"x\" \"col(\"fpr_se\")\" \"col(\"fpr_exact\")\" \"col(\"fill\")}} END{for(key in row) print row[key]}", f), csv) . " | sort -n"
# ns per query of each layout (rows) under each scheme (columns: double,
# independent, multiply; "-" where the layout does not take the scheme)
speed = "< " . by_name("col(\"scheme\") != \"ideal\" {f = col(\"filter\"); if (!(f in seen)) {seen[f] = 1; order[++n] = f} ns[f, col(\"scheme\")] = col(\"ns_query\")} END {for (j = 1; j <= n; j++) {f = order[j]; printf \"%s\", f; split(\"double independent multiply\", s, \" \"); for (t = 1; t <= 3; t++) printf \" %s\", ((f, s[t]) in ns) ? ns[f, s[t]] : \"-\"; print \"\"}}", csv)
layouts = "standard counting partitioned blocked512 register64 splitblock"
colours = "black #888888 #1a8a3a #1f4fbf #cc0000 #ee7700"

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1650,560 font "Sans,11" noenhanced; set output 'layouts.png' }
    else { set terminal svg size 1650,560 font "Sans,11" dynamic noenhanced; set output 'layouts.svg' }
    set multiplot layout 1,3 title "Filter layouts: ideal positions, each layout at its own best k"
    set grid
    set title "FPR at the best k (points: measured +-1.96 se; lines: exact formula)"
    set xlabel "bits per item"
    set ylabel "false-positive rate"
    set logscale y
    set format y "10^{%T}"
    set format y "%.0e"
    set xrange [3:25]
    set key bottom left box opaque font ",9"
    plot for [i=1:words(layouts)] best(word(layouts, i)) using ($1 + 0.12*(i-3)):3:(1.96*$4) with yerrorbars pt 7 ps 0.8 lc rgb word(colours, i) title word(layouts, i), \
         for [i=1:words(layouts)] best(word(layouts, i)) using 1:5 with lines lw 1.5 lc rgb word(colours, i) notitle
    unset logscale y
    set format y "%g"
    set title "measured best k against (m/n) ln 2"
    set ylabel "k"
    set key top left box opaque font ",9"
    plot x*log(2) with lines dt 2 lw 2 lc "gray30" title "(m/n) ln 2", \
         for [i=1:words(layouts)] best(word(layouts, i)) using ($1 + 0.12*(i-3)):2 with linespoints pt 7 ps 0.8 lw 1.5 lc rgb word(colours, i) title word(layouts, i)
    set title "ns per query, 10 bits/item, xxh3_64 (key making included)"
    set ylabel "ns per query"
    set xlabel ""
    set style data histograms
    set style histogram clustered gap 1
    set style fill solid 0.8 border -1
    set boxwidth 0.9
    set yrange [0:*]
    set xrange [*:*]
    set xtics rotate by -30
    set key top left box opaque font ",9"
    set datafile missing "-"
    plot speed using 2:xtic(1) title "double" lc rgb "#1f4fbf", \
         speed using 3 title "independent" lc rgb "#ee7700", \
         speed using 4 title "multiply (blocked default)" lc rgb "#1a8a3a"
    unset multiplot
    unset output
}
