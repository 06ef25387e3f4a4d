/* model.h -- each layout's theory, asked by layout: its exact false-positive
 * rate, the variance of one built filter's rate, its expected fill, and its
 * own best k.  The one place that picks a formula by layout: a table in
 * model.c beside the filter layer's (theory.h holds the formulas
 * themselves).
 *
 * Best k.  The integer k in 1..64 whose exact rate (this layout's formula)
 * is least, ties to the smaller k: the rate is unimodal in k, so the scan
 * stops two steps past a rise.  A partitioned filter needs k <= m, and a
 * split block filter has k = 8 by construction.  "Capped" means the rate
 * still fell from k = 63 to 64: the best k the search may give is not the
 * formula's best (very many bits per item).
 *
 * Sizing.  The smallest m for n items at rate p, as `bloomlab calc` and the
 * library (bloomlab.h) size a filter.  The rate at a fixed k falls as m
 * grows and rises with n, and so does its minimum over k, so the search
 * bisects: first doubling from the classic sizing m = n (-ln p) / (ln 2)^2
 * until the target is met, then halving.
 */
#ifndef BLOOMLAB_MODEL_H
#define BLOOMLAB_MODEL_H

#include <stdint.h>

#include "filter/filters.h"

typedef struct {
    double exact;            /* E[F]: the layout's exact rate; NaN when none */
    double approx;           /* the published approximation, or classic */
    double variance;         /* Var F over built filters (theory.c) */
    double fill_expected;
    double fill_sd_expected; /* standard and counting only, else NaN */
} layout_model;

layout_model model_for(layout_kind layout, uint64_t m, uint64_t n, unsigned k);
double model_fpr_exact(layout_kind layout, uint64_t m, uint64_t n, unsigned k);

typedef enum { K_OPTIMAL, K_CAPPED, K_FIXED } k_status;

/* This layout's best k for m bits (or counters) and n items; *status (may
 * be NULL) says whether it is the optimum, capped at 64, or fixed (split
 * block).  *fpr (may be NULL) gets the rate there.  1 when n = 0. */
unsigned model_k_best(layout_kind layout, uint64_t m, uint64_t n, k_status *status, double *fpr);
const char *k_status_name(k_status status); /* "optimal", "capped", "fixed" */

/* The searches keep n and m below 2^63 (with room to double). */
#define MODEL_COUNT_MAX 9.2e18

/* The rate of m bits holding n items at k, or at the layout's best k when
 * k = 0 (its k in *k_used, its status in *status: "optimal", "capped",
 * "fixed", or "given" for a k given; either may be NULL).  A k the layout
 * cannot take (split block's k != 8, partitioned's k > m) has rate 1. */
double model_rate(layout_kind layout, uint64_t m, uint64_t n, unsigned k, unsigned *k_used, const char **status);

/* The smallest m (a whole number of the layout's blocks) at which n items
 * meet rate p, at the layout's best k (k = 0) or at k; 0 when none below
 * 2^63.  *k_used (may be NULL) gets the k. */
uint64_t model_smallest_m(layout_kind layout, uint64_t n, double p, unsigned k, unsigned *k_used);

#endif
