/* test_stats.c -- Wilson intervals, running moments and the chi-square tail
 * (stats.h) against values computed independently (mpmath, 50 digits, from
 * the formula in stats.h; chi-square quantiles from the standard tables). */
#include <criterion/criterion.h>
#include <math.h>

#include "model/stats.h"

static void expect_wilson(uint64_t x, uint64_t n, double lo, double hi)
{
    interval ci = stats_wilson(x, n, WILSON_Z95);
    cr_assert_float_eq(ci.lo, lo, 1e-12, "%llu of %llu: lo %.15g, want %.15g", (unsigned long long)x,
                       (unsigned long long)n, ci.lo, lo);
    cr_assert_float_eq(ci.hi, hi, 1e-12, "%llu of %llu: hi %.15g, want %.15g", (unsigned long long)x,
                       (unsigned long long)n, ci.hi, hi);
}

Test(stats, wilson_known_values)
{
    expect_wilson(0, 100, 0, 0.0369934982069857);   /* the "rule of 3.84": z^2 / (n + z^2) */
    expect_wilson(5, 100, 0.021543679154368, 0.111750469231919);
    expect_wilson(50, 100, 0.403831530365996, 0.596168469634004);
    expect_wilson(100, 100, 0.963006501793014, 1);
    expect_wilson(1, 1000000, 1.76524576745372e-7, 5.66491180431144e-6);
}

Test(stats, wilson_stays_inside_and_contains_p)
{
    for (uint64_t n = 1; n <= 200; n += 7)
        for (uint64_t x = 0; x <= n; x++) {
            interval ci = stats_wilson(x, n, WILSON_Z95);
            double p = (double)x / (double)n;
            cr_assert(ci.lo >= 0 && ci.hi <= 1 && ci.lo <= p && p <= ci.hi, "%llu of %llu: [%g, %g]",
                      (unsigned long long)x, (unsigned long long)n, ci.lo, ci.hi);
        }
    interval none = stats_wilson(0, 0, WILSON_Z95);
    cr_assert(none.lo == 0 && none.hi == 1, "no trials: no information");
}

Test(stats, wilson_at_a_trillion_trials)
{
    /* counts beyond 2^32 must not overflow anywhere */
    interval ci = stats_wilson(8000000000ULL, 1000000000000ULL, WILSON_Z95);
    cr_assert(ci.lo < 0.008 && ci.hi > 0.008 && ci.hi - ci.lo < 1e-6, "[%.10g, %.10g]", ci.lo, ci.hi);
}

Test(stats, running_moments)
{
    running r = {0, 0, 0};
    cr_assert_eq(running_sd(&r), 0);
    cr_assert_eq(running_se(&r), 0);
    const double xs[] = {2, 4, 4, 4, 5, 5, 7, 9};
    for (size_t i = 0; i < 8; i++)
        running_add(&r, xs[i]);
    cr_assert_float_eq(r.mean, 5, 1e-15);
    cr_assert_float_eq(running_sd(&r), sqrt(32.0 / 7), 1e-14); /* sum of squares 32, n - 1 = 7 */
    cr_assert_float_eq(running_se(&r), sqrt(32.0 / 7) / sqrt(8), 1e-14);
    running one = {0, 0, 0};
    running_add(&one, 3);
    cr_assert_eq(running_sd(&one), 0, "one sample has no spread");
}

Test(stats, running_moments_are_stable_far_from_zero)
{
    running r = {0, 0, 0};
    for (int i = 0; i < 1000; i++)
        running_add(&r, 1e9 + (i % 2)); /* sd of 0,1,0,1,...: sqrt(1000/(4*999)) */
    cr_assert_float_eq(running_sd(&r), sqrt(1000.0 / (4 * 999)), 1e-9, "%.15g", running_sd(&r));
}

Test(stats, chi2_tail_quantiles)
{
    /* the 95% points of the chi-square table */
    const double x95[][2] = {{1, 3.841458820694124}, {2, 5.991464547107979}, {10, 18.307038053275146},
                             {100, 124.34211340400407}, {1000, 1074.679448803441}};
    for (size_t i = 0; i < sizeof x95 / sizeof x95[0]; i++)
        cr_assert_float_eq(stats_chi2_sf(x95[i][1], x95[i][0]), 0.05, 1e-10, "dof %g: %.15g", x95[i][0],
                           stats_chi2_sf(x95[i][1], x95[i][0]));
    /* and the 1% point of dof 63, the uniformity test's bins - 1 for 64 bins */
    cr_assert_float_eq(stats_chi2_sf(92.010023614132, 63), 0.01, 1e-9);
}

Test(stats, chi2_tail_closed_forms)
{
    for (double x = 0.01; x < 60; x *= 1.5) {
        /* dof 2: exp(-x/2); dof 1: erfc(sqrt(x/2)) */
        cr_assert_float_eq(stats_chi2_sf(x, 2), exp(-x / 2), 1e-13 + 1e-10 * exp(-x / 2), "x %g", x);
        double want = erfc(sqrt(x / 2));
        cr_assert(fabs(stats_chi2_sf(x, 1) - want) <= 1e-12 + 1e-9 * want, "x %g: %.15g want %.15g", x,
                  stats_chi2_sf(x, 1), want);
    }
    cr_assert_eq(stats_chi2_sf(0, 5), 1);
    cr_assert(stats_chi2_sf(1e4, 10) < 1e-300 || stats_chi2_sf(1e4, 10) == 0);
}

Test(stats, median_odd_even_and_order)
{
    double odd[] = {5, 1, 4, 2, 3};
    cr_assert_float_eq(stats_median(odd, 5), 3.0, 0);
    double even[] = {10, -1, 7, 3};
    cr_assert_float_eq(stats_median(even, 4), 5.0, 0);
    double one[] = {2.5};
    cr_assert_float_eq(stats_median(one, 1), 2.5, 0);
    double outlier[] = {1, 1e9, 2}; /* a pass another tenant slowed */
    cr_assert_float_eq(stats_median(outlier, 3), 2.0, 0);
}
