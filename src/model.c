/* model.c -- each layout's theory, asked by layout; see model.h. */
#include "model.h"

#include <math.h>

#include "theory.h"

layout_model model_for(layout_kind layout, uint64_t m, uint64_t n, unsigned k)
{
    layout_model t = {NAN, NAN, NAN, NAN, NAN};
    switch (layout) {
    case LAYOUT_PARTITIONED:
        t.exact = theory_fpr_partitioned(m, n, k);
        t.variance = theory_fpr_var_partitioned(m, n, k);
        t.fill_expected = theory_fill_partitioned(m, n, k);
        break;
    case LAYOUT_BLOCKED512:
    case LAYOUT_REGISTER64: {
        unsigned b = layout_block_bits(layout);
        t.exact = theory_fpr_blocked(m, n, k, b, 1);
        t.approx = theory_fpr_blocked(m, n, k, b, 0);
        t.variance = theory_fpr_var_blocked(m, n, k, b);
        t.fill_expected = theory_fill_blocked(m, n, k, b);
        break;
    }
    case LAYOUT_SPLITBLOCK:
        t.exact = theory_fpr_splitblock(m, n, 1);
        t.approx = theory_fpr_splitblock(m, n, 0);
        t.variance = theory_fpr_var_splitblock(m, n);
        t.fill_expected = theory_fill_splitblock(m, n);
        break;
    default: /* standard, counting */
        t.exact = theory_fpr_exact(m, n, k);
        t.approx = theory_fpr_classic(m, n, k);
        t.variance = theory_fpr_var_standard(m, n, k);
        t.fill_expected = theory_fill_expected(m, n, k);
        t.fill_sd_expected = theory_fill_sd(m, n, k);
        break;
    }
    return t;
}

double model_fpr_exact(layout_kind layout, uint64_t m, uint64_t n, unsigned k)
{
    switch (layout) {
    case LAYOUT_PARTITIONED:
        return theory_fpr_partitioned(m, n, k);
    case LAYOUT_BLOCKED512:
    case LAYOUT_REGISTER64:
        return theory_fpr_blocked(m, n, k, layout_block_bits(layout), 1);
    case LAYOUT_SPLITBLOCK:
        return theory_fpr_splitblock(m, n, 1);
    default:
        return theory_fpr_exact(m, n, k);
    }
}

/* Past a rise of the rate, how many more k are tried before the scan stops. */
#define K_RISES_TO_STOP 2

unsigned model_k_best(layout_kind layout, uint64_t m, uint64_t n, k_status *status, double *fpr)
{
    k_status st = K_OPTIMAL;
    unsigned best_k = 1, k_max = FILTER_K_MAX;
    if (layout == LAYOUT_SPLITBLOCK) {
        best_k = 8;
        st = K_FIXED;
    } else if (n > 0) {
        if (layout == LAYOUT_PARTITIONED && m < k_max)
            k_max = m > 0 ? (unsigned)m : 1;
        double best = model_fpr_exact(layout, m, n, 1);
        unsigned rises = 0;
        for (unsigned k = 2; k <= k_max && rises < K_RISES_TO_STOP; k++) {
            double rate = model_fpr_exact(layout, m, n, k);
            if (rate < best) {
                best = rate;
                best_k = k;
                rises = 0;
            } else if (rate > best) {
                rises++;
            }
        }
        if (best_k == FILTER_K_MAX)
            st = K_CAPPED;
    }
    if (status)
        *status = st;
    if (fpr)
        *fpr = n > 0 ? model_fpr_exact(layout, m, n, best_k) : 0;
    return best_k;
}

const char *k_status_name(k_status status)
{
    static const char *const names[] = {"optimal", "capped", "fixed"};
    return names[status];
}
