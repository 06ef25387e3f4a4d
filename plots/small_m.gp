# small_m.gp -- tiny filters (m = 16..256 bits, k = 3): measured FPR / exact
# formula E[(X/m)^k] for the course page's scheme, double hashing,
# independent hashes and the ideal oracle, one panel per load.
# Bars: +-1.96 se.  Run from plots/: gnuplot small_m.gp
csv = '../results/small_m.csv'
load "columns.gpi"
# print log2 m, fpr / fpr_exact, 1.96 se / fpr_exact for one (hash, scheme, load)
series(h, s, bpi) = "< " . by_name(sprintf("col(\"hash\") == \"%s\" && col(\"scheme\") == \"%s\" && col(\"m\") == %d * col(\"n\") {print log(col(\"m\"))/log(2), col(\"fpr\")/col(\"fpr_exact\"), 1.96*col(\"fpr_se\")/col(\"fpr_exact\")}", h, s, bpi), csv)
names = "ideal:ideal fnv1a32:course xxh3_64:course fnv1a32:double xxh3_64:double fnv1a32:independent xxh3_64:independent"
colours = "black #cc0000 #ee7700 #1f4fbf #3a8fd9 #1a8a3a #66bb44"
hash_of(w) = substr(w, 1, strstrt(w, ":") - 1)
scheme_of(w) = substr(w, strstrt(w, ":") + 1, strlen(w))
loads = "8 4 2"

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1500,520 font "Sans,11" noenhanced; set output 'small_m.png' }
    else { set terminal svg size 1500,520 font "Sans,11" dynamic noenhanced; set output 'small_m.svg' }
    set multiplot layout 1,3 title "Small filters, k = 3: measured FPR / exact formula (random64 keys)"
    set xlabel "log2 m (bits)"
    set grid
    set xrange [3.7:8.3]
    set yrange [0.9:1.4]
    set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc "gray30"
    do for [p=1:3] {
        bpi = word(loads, p) + 0
        set title sprintf("%d bits per item (n = m/%d)", bpi, bpi)
        set ylabel (p == 1 ? "fpr / fpr_exact" : "")
        if (p == 1) { set key top right box opaque font ",9" } else { unset key }
        plot for [i=1:words(names)] series(hash_of(word(names, i)), scheme_of(word(names, i)), bpi) \
             using ($1 + 0.03*(i-4)):2:3 with yerrorlines lw 2 pt 7 ps 0.7 lc rgb word(colours, i) \
             title sprintf("%s %s", hash_of(word(names, i)), scheme_of(word(names, i)))
    }
    unset multiplot
    unset output
}
