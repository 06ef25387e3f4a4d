/* stats.h -- the statistics set beside every measurement.
 *
 * A cell runs T trials; trial t inserts n keys into a fresh filter and asks
 * Q absent keys, of which x_t answer "probably".  The pooled rate is
 * p = sum x_t / (T Q).
 *
 * Wilson interval.  For X ~ Binomial(N, p) the 95% interval is
 *   (p + z^2/2N -+ z sqrt(p(1-p)/N + z^2/4N^2)) / (1 + z^2/N),  z = 1.96,
 * which, unlike p -+ z sqrt(p(1-p)/N), stays inside [0, 1] and does not
 * collapse to a point when X = 0.  It treats the T Q answers as independent,
 * which they are not: all Q queries of a trial share one filter, and
 * filters differ (their fill varies), so the rates of a trial are
 * overdispersed against the binomial.
 *
 * Between-trial standard error.  se = sd(x_t / Q) / sqrt(T) captures both
 * sources of variation, and is what z uses: z = (p - p_theory) / se.  With
 * T = 1 there is no between-trial spread; se then falls back to the binomial
 * sqrt(p(1-p)/Q) and understates.  See also stats_chi2_sf for uniformity.
 */
#ifndef BLOOMLAB_STATS_H
#define BLOOMLAB_STATS_H

#include <stddef.h>
#include <stdint.h>

#define WILSON_Z95 1.959963984540054

typedef struct {
    double lo, hi;
} interval;

interval stats_wilson(uint64_t successes, uint64_t trials, double z);

/* Running mean and variance (Welford), exact enough for 1e9 samples. */
typedef struct {
    uint64_t count;
    double mean;
    double m2;
} running;

void running_add(running *r, double x);
double running_sd(const running *r);   /* sample sd; 0 with fewer than 2 */
double running_se(const running *r);   /* sd / sqrt(count) */

/* The median of values[0 .. count) (count > 0; the mean of the middle two
 * when count is even).  Sorts values in place. */
double stats_median(double *values, size_t count);

/* P(chi^2_dof > x): the upper tail, for the uniformity test. */
double stats_chi2_sf(double x, double dof);

#endif
