/* test_calibration.c -- are the standard errors right?  Under the null
 * hypothesis (the ideal scheme: the positions the theory assumes) z =
 * (fpr - fpr_exact) / fpr_se is close to N(0, 1) in every cell, at any
 * trial count.  Hundreds of small ideal cells across the layouts at
 * trials = 1, 2, 3 and 10, with independent seeds (so the cells are
 * independent and their count beyond 3 is binomial), are held to:
 *   - the number with |z| > 3 within 5 sigma of the binomial count at
 *     P(|N(0,1)| > 3) = 0.27%;
 *   - a Kolmogorov-Smirnov test of the z values against N(0, 1) not
 *     rejected at 1e-6.
 * The same is asked of the two halves the ideal cells separate, query noise
 * (z_query) and filter-to-filter noise (z_filter).  And the test must have
 * the power to tell: the between-trial standard error alone (what fpr_se
 * was, with the binomial at one trial) fails it.
 *
 * Small m on purpose: a few blocks, a few hundred keys, so that Var F is a
 * large part of the variance and the model's has to be right. */
#include <criterion/criterion.h>
#include <math.h>

#include "csv.h"
#include "helpers.h"

static const char CALIBRATION_INI[] =
    "[experiment]\nname = calibration\nseed = 17\nseeds = independent\nscheme = ideal\nkeys = random64\n"
    "queries = 20000\ntrials = 1, 2, 3, 10\nn = 128, 256, 512\nbits_per_item = 6, 10\n"
    "[unblocked]\nfilter = standard, counting, partitioned\nk = 3, 5\n"
    "[blocked]\nfilter = blocked512, register64\nk = 3, 5\n"
    "[split]\nfilter = splitblock\nk = opt\n";
#define CALIBRATION_CELLS (3 * 2 * 4 * 3 * 2 + 2 * 2 * 4 * 3 * 2 + 4 * 3 * 2)

#define Z_FAR 3.0
#define SIGMAS 5.0
#define KS_ALPHA 1e-6

static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2)); }

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Kolmogorov-Smirnov statistic of values[0 .. count) against N(0, 1); sorts them. */
static double ks_statistic(double *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    double d = 0;
    for (size_t i = 0; i < count; i++) {
        double cdf = normal_cdf(values[i]);
        double above = (double)(i + 1) / (double)count - cdf, below = cdf - (double)i / (double)count;
        d = fmax(d, fmax(above, below));
    }
    return d;
}

/* P(D >= d) for count values from the hypothesised law: Kolmogorov's
 * limit at Stephens' corrected argument (accurate to a few % of the
 * p-value at count >= 35). */
static double ks_p_value(double d, size_t count)
{
    double root = sqrt((double)count), x = d * (root + 0.12 + 0.11 / root), p = 0;
    for (int j = 1; j <= 100; j++)
        p += (j % 2 ? 2 : -2) * exp(-2.0 * j * j * x * x);
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

typedef struct {
    size_t count, far;
    double ks, ks_p;
    double far_lo, far_hi; /* the binomial bounds on far */
} calibration;

static calibration calibrate(double *z, size_t count)
{
    calibration c = {count, 0, 0, 0, 0, 0};
    double p_far = erfc(Z_FAR / sqrt(2));
    double mean = p_far * (double)count, sd = sqrt((double)count * p_far * (1 - p_far));
    c.far_lo = mean - SIGMAS * sd;
    c.far_hi = mean + SIGMAS * sd;
    for (size_t i = 0; i < count; i++)
        c.far += fabs(z[i]) > Z_FAR;
    c.ks = ks_statistic(z, count);
    c.ks_p = ks_p_value(c.ks, count);
    return c;
}

static int calibrated(const calibration *c)
{
    return (double)c->far >= c->far_lo && (double)c->far <= c->far_hi && c->ks_p > KS_ALPHA;
}

static void assert_calibrated(const char *what, double *z, size_t count)
{
    calibration c = calibrate(z, count);
    cr_assert(calibrated(&c), "%s: %zu of %zu cells have |z| > 3 (bounds %.2f..%.2f); KS D = %.4f, p = %.3g",
              what, c.far, c.count, c.far_lo, c.far_hi, c.ks, c.ks_p);
}

/* The old standard error: the between-trial one, the binomial at T = 1. */
static double old_z(const csv_table *t, const char *row)
{
    double trials = csv_num(t, row, "trials"), fpr = csv_num(t, row, "fpr");
    double se = trials >= 2 ? csv_num(t, row, "fpr_se_trials")
                            : sqrt(fpr * (1 - fpr) / (trials * csv_num(t, row, "queries")));
    double z = (fpr - csv_num(t, row, "fpr_exact")) / se;
    return isnan(z) ? 0 : z; /* 0/0: two trials alike, and right on the formula */
}

Test(calibration, z_is_standard_normal_at_any_trial_count, .timeout = 600)
{
    char *dir = temp_dir();
    char ini[400], csv_path[400], args[1000];
    snprintf(ini, sizeof ini, "%s/calibration.ini", dir);
    snprintf(csv_path, sizeof csv_path, "%s/calibration.csv", dir);
    write_text(ini, CALIBRATION_INI);
    snprintf(args, sizeof args, "run %s -o %s --quiet --threads 2", ini, csv_path);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    char *text = slurp(csv_path);
    csv_table t = csv_read(text);
    cr_assert_eq(t.count, CALIBRATION_CELLS);

    double *z[4];
    const char *names[] = {"z", "z_query", "z_filter", "old z"};
    for (int i = 0; i < 4; i++)
        z[i] = malloc((size_t)t.count * sizeof *z[i]);
    for (int i = 0; i < t.count; i++) {
        z[0][i] = csv_num(&t, t.rows[i], "z");
        z[1][i] = csv_num(&t, t.rows[i], "z_query");
        z[2][i] = csv_num(&t, t.rows[i], "z_filter");
        z[3][i] = old_z(&t, t.rows[i]);
        for (int j = 0; j < 3; j++)
            cr_assert(isfinite(z[j][i]), "row %d: %s is not a number", i, names[j]);
    }
    for (int j = 0; j < 3; j++)
        assert_calibrated(names[j], z[j], (size_t)t.count);
    calibration old = calibrate(z[3], (size_t)t.count);
    cr_assert(!calibrated(&old), "the between-trial SE passes too: the test cannot tell (%zu far, KS p = %.3g)",
              old.far, old.ks_p);
    for (int i = 0; i < 4; i++)
        free(z[i]);
    csv_free(&t);
    free(text);
    remove_tree(dir);
}
