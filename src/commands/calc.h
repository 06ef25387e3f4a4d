/* calc.h -- `bloomlab calc`: the sizing calculator.
 *
 * Any two of n (items), p (target false-positive rate) and m (bits, or
 * counters for the counting layout) give the rest, for one layout
 * (--filter, default standard) under that layout's own exact formula
 * (model.h), at its best integer k unless k is given:
 *   n, p -> the smallest m the layout allows (a whole number of its
 *           blocks) whose rate at its best k (or the given k) is <= p;
 *   m, p -> the largest n whose rate is <= p;
 *   m, n -> the rate and the best k.
 * The searches (model_smallest_m in model.h, and the largest n here)
 * bisect: the rate at a fixed k falls as m grows and rises with n, and so
 * does its minimum over k.
 * The best k is "optimal", "capped" (the rate still falls at k = 64),
 * "fixed" (split block: 8) or "given".  Sizes: MB = 1e6 bytes, MiB = 2^20.
 *
 * A filter plugin (--filter plugin:PATH.so) sizes itself: n and p go to its
 * choose, and its m, k, bits per item and its own formula's rate (its fpr)
 * are a row of their own, k_status "chosen", beside a row for each of
 * bloomlab's layouts at the same n and p.  A plugin without choose is one
 * line and exit 2.
 */
#ifndef BLOOMLAB_CALC_H
#define BLOOMLAB_CALC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "filter/filters.h"
#include "harness/table.h"

struct calc_input {
    int have_n, have_p, have_m, have_k;
    uint64_t n, m;
    double p;
    unsigned k;
    layout_kind layout;
    const char *plugin; /* --filter plugin:PATH.so (then layout is unused), else NULL */
    table_format format;
};

struct calc_result {
    layout_kind layout;
    const char *filter;   /* the filter column: a plugin's spec; NULL: the layout's name */
    uint64_t n, m;        /* m: bits, or counters (counting) */
    int have_p_target;
    double p_target;
    unsigned k;
    const char *k_status; /* "optimal", "capped", "fixed" or "given" */
    uint64_t memory_bits; /* m, or 4 m for counting */
    uint64_t bytes;       /* ceil(memory_bits / 8) */
    double bits_per_item; /* m / n */
    double p_exact;       /* the layout's exact formula (a plugin's own fpr; NaN without one) */
    double p_classic;     /* (1 - e^(-kn/m))^k, for comparison */
};

/* Parse argv (argv[0] is "calc").  0 on success; 1 when --help was asked
 * (nothing else is parsed); -1 with one message in err naming the flag
 * and value (without the "bloomlab calc: " prefix).  --p takes a rate
 * (0.01), a percentage (1%) or "1 in N" (also 1/N). */
int calc_parse(int argc, char **argv, struct calc_input *in, char *err, size_t err_size);

/* Solve for the missing quantity.  0, or -1 with a message in err (fewer
 * or more than two of n, p, m; or a size out of range). */
int calc_solve(const struct calc_input *in, struct calc_result *out, char *err, size_t err_size);

/* "1.20 MB" (binary = 0: kB, MB, GB... of 1000) or "1.14 MiB" (binary = 1:
 * KiB, MiB... of 1024); below one kilo-unit, "812 B". */
void calc_human_bytes(double bytes, int binary, char *buf, size_t size);

/* Parse one number: decimal, scientific (1e6) or a power 2^20.  0, or -1
 * when text is not a finite number. */
int calc_number(const char *text, double *out);

/* Write a result as text, one CSV row under its header, or one JSON object
 * (table.h's writers: the same quoting and escaping as every command). */
void calc_write(FILE *out, const struct calc_result *r, table_format format);

int cmd_calc(int argc, char **argv);

#endif
