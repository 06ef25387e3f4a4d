# default_schemes.gp -- every layout at its default scheme (xxh3_64, random
# 8-byte keys, its own best k): measured FPR over the layout's exact formula
# against bits per item, bars +- 5 SE (the model's fpr_se); dashed: the
# blocked layouts with double hashing inside the block, which the multiply
# scheme replaced as their default.  Columns are read by name (columns.gpi).
# Run from plots/: gnuplot default_schemes.gp
csv = '../results/default_schemes.csv'
load "columns.gpi"
# print bits_per_item, fpr / fpr_exact, 5 se / fpr_exact for one (filter, scheme)
rows(f, s) = "< " . by_name(sprintf("col(\"filter\") == \"%s\" && col(\"scheme\") == \"%s\" {e = col(\"fpr_exact\"); print col(\"bits_per_item\"), col(\"fpr\") / e, 5 * col(\"fpr_se\") / e}", f, s), csv) . " | sort -g"
layouts = "standard counting partitioned blocked512 register64 splitblock"
schemes = "double double double multiply multiply double"
colours = "black #888888 #1a8a3a #1f4fbf #cc0000 #ee7700"

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1100,650 font "Sans,11" noenhanced; set output 'default_schemes.png' }
    else { set terminal svg size 1100,650 font "Sans,11" dynamic noenhanced; set output 'default_schemes.svg' }
    set title "Each layout at its default scheme (xxh3_64, best k): measured / exact FPR, bars +- 5 SE\n(dashed: blocked layouts with double hashing inside the block)"
    set grid
    set xlabel "bits per item"
    set ylabel "measured FPR / layout's exact formula"
    set logscale y
    set yrange [0.5:8]
    set ytics ("0.5" 0.5, "0.7" 0.7, "1" 1, "1.5" 1.5, "2" 2, "3" 3, "5" 5, "8" 8)
    set xrange [3:25]
    set key top left box opaque font ",10"
    plot 1 with lines lc "gray30" lw 1 notitle, \
         for [i=1:words(layouts)] rows(word(layouts, i), word(schemes, i)) using ($1 + 0.12*(i-3)):2:3 with yerrorlines pt 7 ps 0.8 lw 1.5 lc rgb word(colours, i) title word(layouts, i)." (".word(schemes, i).")", \
         rows("blocked512", "double") using 1:2:3 with yerrorlines dt 2 pt 6 lw 1.5 lc rgb word(colours, 4) title "blocked512 (double)", \
         rows("register64", "double") using 1:2:3 with yerrorlines dt 2 pt 6 lw 1.5 lc rgb word(colours, 5) title "register64 (double)"
    unset output
}
