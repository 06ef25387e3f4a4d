# hash_compare.gp -- forest plot: measured FPR / exact theory per hash and
# scheme, one panel per key set, m = 2^16 (filled) and m = 65521 (open).
# Bars: the 95% Wilson interval divided by the formula.  Red: |z| > 5 (z
# from the between-trial se, or from the formula's binomial se when every
# trial gave the same count: hashes that ignore the seed).  A rate of 0 is
# drawn at the left edge.  Run from plots/: gnuplot hash_compare.gp
csv = '../results/hash_compare.csv'
hashes = "fnv1a32 fnv1a64 xxh32 xxh64 xxh3_64 xxh3_128 murmur3_32 murmur3_128 crc32 first8 bytesum"
schemes = "independent double enhanced course"
keysets = "random64 seq64 urls words"
xmin = 0.03
load "columns.gpi"
# awk: keys, y, ratio, lo, hi, flagged, pow2, scheme index
rows(k) = "< " . by_name(sprintf("BEGIN{want=\"%s\";xmin=%g;split(\"%s\",H,\" \");for(i in H)h[H[i]]=i;split(\"%s\",S,\" \");for(i in S)s[S[i]]=i} col(\"keys\")==want{e=col(\"fpr_exact\");fpr=col(\"fpr\");r=fpr/e;lo=col(\"fpr_lo\")/e;hi=col(\"fpr_hi\")/e;se=col(\"fpr_se\");if(se>0)z=(fpr-e)/se;else z=(fpr-e)/sqrt(e*(1-e)/(col(\"trials\")*col(\"queries\")));f=(z>5||z<-5)?1:0;sc=col(\"scheme\");pow2=(col(\"m\")==65536);y=(sc==\"ideal\")?0:-(h[col(\"hash\")]-1)*5-s[sc];if(!pow2)y-=0.4;if(r<xmin)r=xmin;if(lo<xmin)lo=xmin;if(hi<xmin)hi=xmin;print want,y,r,lo,hi,f,pow2,s[sc]}", k, xmin, hashes, schemes), csv)

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1800,1500 font "Sans,10" noenhanced; set output 'hash_compare.png' }
    else { set terminal svg size 1800,1500 font "Sans,10" dynamic noenhanced; set output 'hash_compare.svg' }
    set multiplot layout 1,4 title "hash x scheme x key set: measured FPR / exact formula (standard filter, 10 bits/item, k = 7; filled m = 2^16, open m = 65521 prime; red: |z| > 5)" font ",12"
    set logscale x
    set xrange [xmin:300]
    set yrange [-56:1]
    set grid x
    set xtics ("0" xmin, "0.1" 0.1, "0.5" 0.5, "1" 1, "2" 2, "10" 10, "100" 100)
    set ytics () font ",9"
    set ytics add ("ideal" 0)
    do for [i=1:words(hashes)] {
        set ytics add (word(hashes, i) -(i-1)*5 - 2.5)
    }
    set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 2 lc "gray30"
    set xlabel "fpr / fpr_exact"
    do for [p=1:words(keysets)] {
        if (p == 1) { set key top left font ",9" box opaque } else { unset key }
        set title word(keysets, p)
        plot for [si=1:4] rows(word(keysets, p)) \
                 using 3:($7==1 && $8==si ? $2 : 1/0):4:5:($6 > 0 ? 0xdd2222 : 0x2244aa) with xerrorbars pt (3+2*si) ps 1.0 lc rgb variable \
                 title (p == 1 ? word(schemes, si) : ""), \
             for [si=1:4] rows(word(keysets, p)) \
                 using 3:($7==0 && $8==si ? $2 : 1/0):4:5:($6 > 0 ? 0xdd2222 : 0x2244aa) with xerrorbars pt (4+2*si) ps 1.0 lc rgb variable notitle, \
             rows(word(keysets, p)) using 3:($2==0 || $2==-0.4 ? $2 : 1/0):4:5 with xerrorbars pt 1 ps 1.5 lc "black" title (p == 1 ? "ideal" : "")
    }
    unset multiplot
    unset output
}
