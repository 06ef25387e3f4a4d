/* model.h -- each layout's theory, asked by layout: its exact false-positive
 * rate, the variance of one built filter's rate, its expected fill, and its
 * own best k.  The one place that switches on the layout for a formula
 * (theory.h holds the formulas themselves).
 *
 * Best k.  The integer k in 1..64 whose exact rate (this layout's formula)
 * is least, ties to the smaller k: the rate is unimodal in k, so the scan
 * stops two steps past a rise.  A partitioned filter needs k <= m, and a
 * split block filter has k = 8 by construction.  "Capped" means the rate
 * still fell from k = 63 to 64: the best k the search may give is not the
 * formula's best (very many bits per item).
 */
#ifndef BLOOMLAB_MODEL_H
#define BLOOMLAB_MODEL_H

#include <stdint.h>

#include "filters.h"

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

#endif
