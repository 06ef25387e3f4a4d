/* stats.c -- Wilson intervals, running moments, the chi-square tail; see stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

interval stats_wilson(uint64_t successes, uint64_t trials, double z)
{
    if (trials == 0)
        return (interval){0, 1};
    double n = (double)trials, p = (double)successes / n, z2 = z * z;
    double centre = p + z2 / (2 * n);
    double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    double scale = 1 + z2 / n;
    interval r = {(centre - half) / scale, (centre + half) / scale};
    if (successes == 0)
        r.lo = 0;
    if (successes == trials)
        r.hi = 1;
    return r;
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
