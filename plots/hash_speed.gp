# hash_speed.gp -- ns per hash call, from the slope of ns_insert against k
# (independent scheme: k calls per key; a 2^16-bit filter that stays in L1).
# The slope removes what every insert pays once -- making the key, the loop
# -- which the sweep's ns columns include.  Left: 8-byte keys (random64);
# right: URLs (about 30..120 bytes).  Run from plots/: gnuplot hash_speed.gp
csv = '../results/hash_speed.csv'
load "columns.gpi"
# per hash, in the CSV's order: the least-squares line of ns_insert over k; print hash, slope, intercept
fit(keys) = "< " . by_name(sprintf("col(\"keys\") == \"%s\" {h=col(\"hash\"); k=col(\"k\"); ns=col(\"ns_insert\"); if(!(h in c)) order[++nh]=h; c[h]++; sx[h]+=k; sy[h]+=ns; sxx[h]+=k*k; sxy[h]+=k*ns} END{for(i=1;i<=nh;i++){h=order[i]; b=(c[h]*sxy[h]-sx[h]*sy[h])/(c[h]*sxx[h]-sx[h]*sx[h]); a=(sy[h]-b*sx[h])/c[h]; print h, b, a}}", keys), csv)

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1300,560 font "Sans,11" noenhanced; set output 'hash_speed.png' }
    else { set terminal svg size 1300,560 font "Sans,11" dynamic noenhanced; set output 'hash_speed.svg' }
    set multiplot layout 1,2 title "Hash speed: ns per call = slope of ns_insert over k (independent scheme, k = 1, 2, 4, 8; shared machine, noisy)"
    set style data histograms
    set style histogram clustered gap 1
    set style fill solid 0.8 border -1
    set boxwidth 0.9
    set grid y
    set yrange [0:*]
    set xtics rotate by -35
    set ylabel "ns"
    set key below
    do for [p=1:2] {
        keys = p == 1 ? "random64" : "urls"
        set title keys . (p == 1 ? " (8-byte keys)" : " (30..120 bytes)")
        plot fit(keys) using 2:xtic(1) title "ns per hash call (slope)" lc rgb "#1f4fbf", \
             fit(keys) using 3 title "ns per key besides hashing (intercept)" lc rgb "#bbbbbb"
    }
    unset multiplot
    unset output
}
