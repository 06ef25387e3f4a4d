# hash_limits.gp -- FPR / exact formula against m at 10 bits per item, k = 7:
# 32-bit hashes (double and independent) against 64- and 128-bit hashes and
# the ideal oracle.  Bars: +-1.96 se.  Run from plots/: gnuplot hash_limits.gp
csv = '../results/hash_limits.csv'
load "columns.gpi"
# print log2 m, fpr / fpr_exact, 1.96 se / fpr_exact for one (hash, scheme)
series(h, s) = "< " . by_name(sprintf("col(\"hash\") == \"%s\" && col(\"scheme\") == \"%s\" {print log(col(\"m\"))/log(2), col(\"fpr\")/col(\"fpr_exact\"), 1.96*col(\"fpr_se\")/col(\"fpr_exact\")}", h, s), csv)
names = "ideal:ideal xxh32:double murmur3_32:double xxh3_64:double xxh64:double xxh3_128:double murmur3_128:double xxh32:independent xxh3_64:independent"
colours = "black #cc0000 #ee7700 #1f4fbf #3a8fd9 #1a8a3a #66bb44 #cc0000 #1f4fbf"
dash(i) = i >= 8 ? 2 : 1
hash_of(w) = substr(w, 1, strstrt(w, ":") - 1)
scheme_of(w) = substr(w, strstrt(w, ":") + 1, strlen(w))

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1100,700 font "Sans,11" noenhanced; set output 'hash_limits.png' }
    else { set terminal svg size 1100,700 font "Sans,11" dynamic noenhanced; set output 'hash_limits.svg' }
    set title "What breaks at scale: standard filter, 10 bits/item, k = 7, random64 keys"
    set xlabel "log2 m (bits)"
    set ylabel "measured FPR / exact formula"
    set grid
    # outside, right of the plot: inside, the box hid the points at the
    # largest m, where the 32-bit rows depart
    set key outside right top vertical box opaque
    set xrange [19.5:*]
    set yrange [0.8:*]
    set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc "gray30"
    plot for [i=1:words(names)] series(hash_of(word(names, i)), scheme_of(word(names, i))) \
         using ($1 + 0.03*(i-5)):2:3 with yerrorlines lw 2 dt dash(i) pt 7 ps 0.8 lc rgb word(colours, i) \
         title sprintf("%s %s", hash_of(word(names, i)), scheme_of(word(names, i)))
    unset output
}
