/* stats.c -- Wilson intervals, running moments, the chi-square tail; see stats.h. */
#include "model/stats.h"

#include <math.h>
#include <stdlib.h>

/* Wilson's interval for rate p out of n answers (n need not be whole). */
static interval wilson(double p, double n, double z)
{
    double z2 = z * z;
    double centre = p + z2 / (2 * n);
    double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    double scale = 1 + z2 / n;
    interval r = {(centre - half) / scale, (centre + half) / scale};
    if (p <= 0)
        r.lo = 0;
    if (p >= 1)
        r.hi = 1;
    return r;
}

interval stats_wilson(uint64_t successes, uint64_t trials, double z)
{
    if (trials == 0)
        return (interval){0, 1};
    return wilson((double)successes / (double)trials, (double)trials, z);
}

double stats_trial_variance(const rate_model *model)
{
    double f = model->mean, v = model->variance_filter;
    double query_part = (f - f * f - v) / model->queries;
    return (query_part > 0 ? query_part : 0) + v;
}

double stats_se_model(const rate_model *model)
{
    return sqrt(stats_trial_variance(model) / model->trials);
}

interval stats_wilson_model(uint64_t successes, const rate_model *model, double z)
{
    double answers = model->queries * model->trials;
    double se = stats_se_model(model), binomial = model->mean * (1 - model->mean);
    double effective = se > 0 && binomial > 0 ? binomial / (se * se) : answers;
    return wilson((double)successes / answers, effective < answers ? effective : answers, z);
}

dispersion stats_dispersion(double sample_variance, double model_variance, uint64_t trials)
{
    dispersion d = {NAN, NAN, ""};
    if (trials < 2 || !(model_variance > 0))
        return d;
    double dof = (double)(trials - 1);
    d.ratio = sample_variance / model_variance;
    d.p_over = stats_chi2_sf(dof * d.ratio, dof);
    if (d.p_over < DISPERSION_ALPHA)
        d.flag = "over";
    return d;
}

void running_add(running *r, double x)
{
    r->count++;
    double delta = x - r->mean;
    r->mean += delta / (double)r->count;
    r->m2 += delta * (x - r->mean);
}

double running_sd(const running *r)
{
    return r->count < 2 ? 0.0 : sqrt(r->m2 / (double)(r->count - 1));
}

double running_se(const running *r)
{
    return r->count == 0 ? 0.0 : running_sd(r) / sqrt((double)r->count);
}

/* Regularised upper incomplete gamma Q(a, x), by series below a + 1 and by
 * Lentz's continued fraction above (Numerical Recipes 6.2). */
static double gamma_q(double a, double x)
{
    if (x <= 0)
        return 1.0;
    double log_prefix = a * log(x) - x - lgamma(a);
    if (x < a + 1) {
        double term = 1.0 / a, sum = term;
        for (int i = 1; i < 100000 && fabs(term) > fabs(sum) * 1e-16; i++) {
            term *= x / (a + i);
            sum += term;
        }
        return 1.0 - sum * exp(log_prefix);
    }
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1) < 1e-16)
            break;
    }
    return exp(log_prefix) * h;
}

double stats_chi2_sf(double x, double dof) { return gamma_q(dof / 2, x / 2); }

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_median(double *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}
