/* calc.h -- `bloomlab calc`: the sizing calculator.
 *
 * Any two of n (items), p (target false-positive rate) and m (bits) give
 * the third; k (hashes) is the optimal integer unless given:
 *   n, p -> m = ceil(n (-ln p) / (ln 2)^2), or with k given the least m
 *           whose classic rate (1 - e^(-kn/m))^k is p: m = ceil(-kn / ln(1 - p^(1/k)));
 *   m, p -> n = floor of the same relations solved for n;
 *   n, m -> p is only reported as achieved.
 * The achieved rate is reported exactly (theory_fpr_exact) and by the
 * classic formula.  Sizes: MB = 1e6 bytes, MiB = 2^20 bytes.
 *
 * --filter splitblock sizes Parquet's split-block filter (k = 8, m in whole
 * 256-bit blocks) by its own exact rate, theory_fpr_splitblock, the
 * binomial mixture over block loads:
 *   n, p -> the fewest blocks whose exact rate is <= p (sizing.h's bloomlab
 *           rule; the classic formula's m misses p by 1.1x to 5.5x);
 *   m, p -> the most items whose exact rate in m (up to whole blocks) is <= p;
 *   n, m -> the rate of m up to whole blocks.
 */
#ifndef BLOOMLAB_CALC_H
#define BLOOMLAB_CALC_H

#include <stddef.h>
#include <stdint.h>

struct calc_input {
    int have_n, have_p, have_m, have_k;
    int splitblock; /* --filter splitblock (else standard) */
    uint64_t n, m;
    double p;
    unsigned k;
};

struct calc_result {
    uint64_t n, m;
    int have_p_target;
    double p_target;
    unsigned k;
    int k_given;
    int splitblock;
    uint64_t bytes;       /* ceil(m / 8) */
    double bits_per_item; /* m / n */
    double p_exact, p_classic;
};

/* Parse argv (argv[0] is "calc").  0 on success; 1 when --help was asked
 * (nothing else is parsed); -1 with one message in err naming the flag
 * and value (without the "bloomlab calc: " prefix). */
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

int cmd_calc(int argc, char **argv);

#endif
