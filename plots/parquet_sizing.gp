# parquet_sizing.gp -- split-block filters sized by each rule of src/model/sizing.h:
# measured FPR / promised p against n, one panel per p, one line per rule
# (scheme parquet: the format's own hash).  Dashed: the exact split-block
# rate of the same size over p.  Grey band: 1 +- 5 SE of a filter whose
# rate were p, SE^2 = (p(1-p)/q + Var F)/T with Var F = fpr_filter_var of the
# bloomlab rule's filter (whose rate is p); a point above it breaks its
# promise beyond 5 SE.
# Run from plots/: gnuplot parquet_sizing.gp
# The full scale (n to 1e7) when results/full/ holds it, else the quick one.
csv = system("f=../results/full/parquet_sizing.csv; [ -f $f ] || f=../results/parquet_sizing.csv; printf %s $f")
load "columns.gpi"
# the rows of one sizing rule at one p (scheme parquet)
at(r, p) = sprintf("col(\"scheme\") == \"parquet\" && col(\"sizing\") == \"%s\" && col(\"p_target\")+0 == %s", r, p)
# print n, fpr / p, fpr_exact / p
rule(r, p) = "< " . by_name(at(r, p) . " {p=col(\"p_target\"); print col(\"n\"), col(\"fpr\")/p, col(\"fpr_exact\")/p}", csv) . " | sort -g"
# print n, 1 - 5 se (at least 0.01), 1 + 5 se, from the bloomlab rule's rows
band(p) = "< " . by_name(at("bloomlab", p) . " {p=col(\"p_target\"); se=sqrt((p*(1-p)/col(\"queries\") + col(\"fpr_filter_var\"))/col(\"trials\"))/p; lo=1-5*se; if (lo<0.01) lo=0.01; print col(\"n\"), lo, 1+5*se}", csv) . " | sort -g"
rules = "parquet-classic parquet-classic-nopow2 arrow-rs arrow-rs-nopow2 bloomlab bloomlab-pow2"
colours = "#cc0000 #ff9090 #1f4fbf #8fb0ff #1a8a3a #88cc88"
points = "7 6 5 4 9 8"
ps = "0.1 0.05 0.01 0.001 0.0001 1e-05"

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1800,1000 font "Sans,11" noenhanced; set output 'parquet_sizing.png' }
    else { set terminal svg size 1800,1000 font "Sans,11" dynamic noenhanced; set output 'parquet_sizing.svg' }
    set multiplot layout 2,3 title "Split-block (Parquet) filters sized by each rule: measured / promised FPR against n (scheme parquet; dashed: exact rate / p; grey: 1 +- 5 SE)" \
        margins 0.05,0.98,0.07,0.84 spacing 0.06,0.1
    set grid
    set logscale x
    set logscale y
    set format x "10^%T"
    set xlabel "n (distinct values)"
    set ylabel "measured FPR / promised p"
    set yrange [0.05:10]
    set autoscale xfix
    do for [j=1:words(ps)] {
        set title sprintf("p = %s", word(ps, j))
        if (j == 1) { set key at screen 0.5, 0.95 center horizontal maxrows 2 font ",10" } else { unset key }
        plot band(word(ps, j)) using 1:2:3 with filledcurves fc rgb "#d8d8d8" fs solid 0.6 noborder title "1 +- 5 SE", \
             1 with lines lc "black" lw 1 notitle, \
             for [i=1:words(rules)] rule(word(rules, i), word(ps, j)) using 1:3 with lines dt 2 lw 1 lc rgb word(colours, i) notitle, \
             for [i=1:words(rules)] rule(word(rules, i), word(ps, j)) using 1:2 with linespoints pt (word(points, i)+0) ps 0.7 lw 1.5 lc rgb word(colours, i) title word(rules, i)
    }
    unset multiplot
}
