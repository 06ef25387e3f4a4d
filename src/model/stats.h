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
 * The model's standard error.  Under the null hypothesis (the positions
 * behave as the ideal oracle's) the variance of p is known: one trial's
 * rate has Var = E[F(1-F)]/Q + Var F, F one built filter's chance of a
 * false positive (theory.c: ONE FILTER'S RATE), and the mean of T trials
 * that over T.  So se = sqrt(Var / T) holds at any T, T = 1 included, and
 * z = (p - E[F]) / se.  The 95% interval is Wilson's with the design
 * effect: the Q T answers count as N_eff = E[F](1-E[F]) / se^2 independent
 * ones (Kish), so the interval widens by exactly the filter-to-filter
 * spread and still stays inside [0, 1].
 *
 * Between-trial standard error.  se_T = sd(x_t / Q) / sqrt(T) estimates
 * the same quantity from the data, with T - 1 degrees of freedom: at T = 2
 * a single difference, so (p - E[F]) / se_T has Student's t with 1 degree
 * of freedom (Cauchy tails), which is why it no longer feeds z.  It is
 * kept beside the model's and compared with it: (T - 1) s^2 / Var is
 * chi-square with T - 1 degrees of freedom under the null (for rates near
 * normal: a few false positives a trial or more), and a cell whose spread
 * the chi-square's upper tail puts beyond DISPERSION_ALPHA is flagged
 * "over": a hash that adds variance the model lacks, a finding.  Too little
 * spread is not flagged: at a few trials the counts tie (two trials of 2
 * alike give s = 0) far more often than the continuous chi-square allows.
 * See also stats_chi2_sf for uniformity.
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

/* The null model of one cell's rate. */
typedef struct {
    double mean;            /* E[F]: the layout's exact rate */
    double variance_filter; /* Var F */
    double queries;         /* Q, absent keys a trial */
    double trials;          /* T */
} rate_model;

double stats_trial_variance(const rate_model *model); /* E[F(1-F)]/Q + Var F */
double stats_se_model(const rate_model *model);       /* sqrt(trial variance / T) */
/* Wilson's interval for successes out of Q T answers, with N_eff of the
 * top comment (the plain one when the model gives no spread). */
interval stats_wilson_model(uint64_t successes, const rate_model *model, double z);

#define DISPERSION_ALPHA 1e-3

typedef struct {
    double ratio;  /* s^2 / the model's trial variance */
    double p_over; /* P(chi^2_{T-1} >= (T-1) ratio): small when over-dispersed */
    const char *flag; /* "over" or "" */
} dispersion;

/* The between-trial sample variance against the model's, T >= 2 trials. */
dispersion stats_dispersion(double sample_variance, double model_variance, uint64_t trials);

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
