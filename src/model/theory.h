/* theory.h -- every formula bloomlab sets beside a measurement.
 *
 * Quantities: m is the number of bits (or counters) of the whole filter,
 * n the number of items inserted, k the number of positions per item
 * (1..64).  Every function is finite and accurate (1e-9 relative) for
 * m in 1..2^40+, n in 0..1e12, k in 1..64, and returns probabilities down
 * to 1e-300 without underflowing to a wrong value.  Results below the
 * double range round to 0 (never NaN).
 */
#ifndef BLOOMLAB_THEORY_H
#define BLOOMLAB_THEORY_H

#include <stdint.h>

/* Standard filter: one array of m bits, k positions drawn uniformly and
 * independently (with replacement) from [0, m). */
double theory_fill_expected(uint64_t m, uint64_t n, unsigned k); /* 1-(1-1/m)^(kn) */
double theory_fill_sd(uint64_t m, uint64_t n, unsigned k);       /* exact sd of (bits set)/m */
double theory_fpr_classic(uint64_t m, uint64_t n, unsigned k);   /* (1-e^(-kn/m))^k */
double theory_fpr_finite(uint64_t m, uint64_t n, unsigned k);    /* (1-(1-1/m)^(kn))^k */
double theory_fpr_exact(uint64_t m, uint64_t n, unsigned k);     /* exact E[(X/m)^k] */

/* Sizing. */
double theory_k_opt(double bits_per_item);               /* (m/n) ln 2 */
unsigned theory_k_opt_int(uint64_t m, uint64_t n);       /* integer k in 1..64 with least fpr_exact; 1 when n = 0 */
double theory_fpr_optimal(double bits_per_item);         /* 2^(-(m/n) ln 2) = 0.6185^(m/n) */
double theory_bits_per_item(double p);                   /* -ln p / (ln 2)^2 */

/* Other layouts (see filters.h for their definitions). */
double theory_fpr_partitioned(uint64_t m, uint64_t n, unsigned k);
double theory_fill_partitioned(uint64_t m, uint64_t n, unsigned k);
/* Blocked: m/block_bits blocks, each key picks one block uniformly and sets
 * k bits in it uniformly with replacement; block_bits = 512 for blocked512,
 * 64 for register64.  exact = 1: binomial mixture over block loads of the
 * exact within-block formula; exact = 0: the published approximation
 * (Poisson loads, classic formula inside a block). */
double theory_fpr_blocked(uint64_t m, uint64_t n, unsigned k, unsigned block_bits, int exact);
double theory_fill_blocked(uint64_t m, uint64_t n, unsigned k, unsigned block_bits);
/* Split block (Parquet): 256-bit blocks of eight 32-bit words; each key
 * picks one block and sets one bit in each word (k = 8). */
double theory_fpr_splitblock(uint64_t m, uint64_t n, int exact);
double theory_fill_splitblock(uint64_t m, uint64_t n);
/* Var F over built filters, F = one filter's chance that an absent key
 * (ideal positions) is a false positive, whose mean is the layout's exact
 * formula (theory.c: ONE FILTER'S RATE).  NaN where it is not computed (a
 * blocked filter with thousands of keys per block). */
double theory_fpr_var_standard(uint64_t m, uint64_t n, unsigned k); /* and counting */
double theory_fpr_var_partitioned(uint64_t m, uint64_t n, unsigned k);
double theory_fpr_var_blocked(uint64_t m, uint64_t n, unsigned k, unsigned block_bits);
double theory_fpr_var_splitblock(uint64_t m, uint64_t n);

#endif
