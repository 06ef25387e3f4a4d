/* model.c -- each layout's theory, asked by layout (a table); see model.h. */
#include "model/model.h"

#include <math.h>

#include "model/theory.h"

#define LN2_SQUARED 0.480453013918201424667102526326649717

/* The model's table: each layout's formulas, indexed by layout_kind like
 * the filter layer's table (filter/layout.h).  There are two tables because
 * the layers point down: the filter library builds without the model
 * (scripts/layers.sh), so the layout table cannot name theory.c's
 * formulas, and this one takes what it needs of the layout (block bits,
 * fixed k, k <= m) from there.  NULL: no such formula (NaN). */
typedef double layout_formula(uint64_t m, uint64_t n, unsigned k, unsigned block_bits);

static double exact_standard(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)b; return theory_fpr_exact(m, n, k); }
static double classic_standard(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)b; return theory_fpr_classic(m, n, k); }
static double var_standard(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)b; return theory_fpr_var_standard(m, n, k); }
static double fill_standard(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)b; return theory_fill_expected(m, n, k); }
static double fill_sd_standard(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)b; return theory_fill_sd(m, n, k); }
static double exact_partitioned(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)b; return theory_fpr_partitioned(m, n, k); }
static double var_partitioned(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)b; return theory_fpr_var_partitioned(m, n, k); }
static double fill_partitioned(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)b; return theory_fill_partitioned(m, n, k); }
static double exact_blocked(uint64_t m, uint64_t n, unsigned k, unsigned b) { return theory_fpr_blocked(m, n, k, b, 1); }
static double approx_blocked(uint64_t m, uint64_t n, unsigned k, unsigned b) { return theory_fpr_blocked(m, n, k, b, 0); }
static double var_blocked(uint64_t m, uint64_t n, unsigned k, unsigned b) { return theory_fpr_var_blocked(m, n, k, b); }
static double fill_blocked(uint64_t m, uint64_t n, unsigned k, unsigned b) { return theory_fill_blocked(m, n, k, b); }
static double exact_splitblock(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)k; (void)b; return theory_fpr_splitblock(m, n, 1); }
static double approx_splitblock(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)k; (void)b; return theory_fpr_splitblock(m, n, 0); }
static double var_splitblock(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)k; (void)b; return theory_fpr_var_splitblock(m, n); }
static double fill_splitblock(uint64_t m, uint64_t n, unsigned k, unsigned b) { (void)k; (void)b; return theory_fill_splitblock(m, n); }

static const struct {
    layout_formula *exact, *approx, *variance, *fill, *fill_sd;
} MODELS[LAYOUT_COUNT] = {
    [LAYOUT_STANDARD] = {exact_standard, classic_standard, var_standard, fill_standard, fill_sd_standard},
    [LAYOUT_COUNTING] = {exact_standard, classic_standard, var_standard, fill_standard, fill_sd_standard},
    [LAYOUT_PARTITIONED] = {exact_partitioned, NULL, var_partitioned, fill_partitioned, NULL},
    [LAYOUT_BLOCKED512] = {exact_blocked, approx_blocked, var_blocked, fill_blocked, NULL},
    [LAYOUT_REGISTER64] = {exact_blocked, approx_blocked, var_blocked, fill_blocked, NULL},
    [LAYOUT_SPLITBLOCK] = {exact_splitblock, approx_splitblock, var_splitblock, fill_splitblock, NULL},
};

static double formula(layout_formula *fn, layout_kind layout, uint64_t m, uint64_t n, unsigned k)
{
    return fn != NULL ? fn(m, n, k, layout_block_bits(layout)) : NAN;
}

layout_model model_for(layout_kind layout, uint64_t m, uint64_t n, unsigned k)
{
    layout_model t = {formula(MODELS[layout].exact, layout, m, n, k), formula(MODELS[layout].approx, layout, m, n, k),
                      formula(MODELS[layout].variance, layout, m, n, k), formula(MODELS[layout].fill, layout, m, n, k),
                      formula(MODELS[layout].fill_sd, layout, m, n, k)};
    return t;
}

double model_fpr_exact(layout_kind layout, uint64_t m, uint64_t n, unsigned k)
{
    return formula(MODELS[layout].exact, layout, m, n, k);
}

/* Past a rise of the rate, how many more k are tried before the scan stops. */
#define K_RISES_TO_STOP 2

unsigned model_k_best(layout_kind layout, uint64_t m, uint64_t n, k_status *status, double *fpr)
{
    k_status st = K_OPTIMAL;
    unsigned best_k = 1, k_max = FILTER_K_MAX;
    if (layout_fixed_k(layout) != 0) {
        best_k = layout_fixed_k(layout);
        st = K_FIXED;
    } else if (n > 0) {
        if (layout_k_at_most_m(layout) && m < k_max)
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

/* ---- sizing: the searches of model.h ------------------------------------ */

double model_rate(layout_kind layout, uint64_t m, uint64_t n, unsigned k, unsigned *k_used, const char **status)
{
    double rate;
    const char *st = "given";
    if (k == 0) {
        k_status best;
        k = model_k_best(layout, m, n, &best, &rate);
        st = k_status_name(best);
    } else {
        char why[200];
        rate = layout_check(layout, SCHEME_DOUBLE, m, k, why, sizeof why) == 0 ? model_fpr_exact(layout, m, n, k) : 1;
    }
    if (k_used)
        *k_used = k;
    if (status)
        *status = st;
    return rate;
}

/* The smallest whole number of units (blocks, or bits) in (lo, hi] whose
 * rate meets p, given that hi meets it and lo does not (lo = 0: no bits). */
static uint64_t bisect_units(layout_kind layout, uint64_t unit, uint64_t n, double p, unsigned k, uint64_t lo,
                             uint64_t hi)
{
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (model_rate(layout, mid * unit, n, k, NULL, NULL) <= p)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

uint64_t model_smallest_m(layout_kind layout, uint64_t n, double p, unsigned k, unsigned *k_used)
{
    uint64_t unit = layout_block_bits(layout);
    double classic = (double)n * -log(p) / LN2_SQUARED;
    uint64_t lo = 0, hi = (uint64_t)ceil(classic / (double)unit);
    if (hi < 1)
        hi = 1;
    while (model_rate(layout, hi * unit, n, k, NULL, NULL) > p) { /* double up to a size that meets p */
        lo = hi;
        if ((double)hi * 2 * (double)unit > MODEL_COUNT_MAX)
            return 0;
        hi *= 2;
    }
    while (lo == 0 && hi > 1 && model_rate(layout, hi / 2 * unit, n, k, NULL, NULL) <= p)
        hi /= 2; /* the classic guess was generous: halve down to a bracket */
    if (lo == 0)
        lo = hi / 2;
    uint64_t m = bisect_units(layout, unit, n, p, k, lo, hi) * unit;
    model_rate(layout, m, n, k, k_used, NULL);
    return m;
}
