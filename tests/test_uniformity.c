/* test_uniformity.c -- the chi-square test itself: its bound, its null
 * distribution under the ideal oracle, and its errors. */
#include <criterion/criterion.h>
#include <math.h>

#include "helpers.h"
#include "harness/keys.h"
#include "model/stats.h"
#include "commands/uniformity.h"

Test(uniformity, alpha_is_two_sided_five_sigma)
{
    /* P(|Z| > 5) for a standard normal: 5.733031e-7 */
    cr_assert(fabs(uniformity_alpha() - 5.733031438470704e-7) < 1e-15);
    cr_assert_str_eq(uniformity_flag(1e-6), "ok");
    cr_assert_str_eq(uniformity_flag(1e-7), "nonuniform");
    cr_assert_str_eq(uniformity_flag(1 - 1e-7), "too_uniform");
}

/* Under the ideal oracle chi2 has mean dof and sd sqrt(2 dof): over 40
 * seeds the mean lies within 5 standard errors of dof, and no seed is
 * flagged. */
Test(uniformity, ideal_follows_the_chi_square_law, .timeout = 60)
{
    char err[256];
    keyset *ks = keyset_open("random64", err, sizeof err);
    cr_assert_not_null(ks, "%s", err);
    const int seeds = 40;
    const uint64_t m = 256;
    double sum = 0;
    for (int s = 0; s < seeds; s++) {
        uniformity_result r;
        cr_assert_eq(uniformity_measure(NULL, SCHEME_IDEAL, ks, m, 5000, 4, (uint64_t)s + 1, &r), 0);
        cr_assert_eq(r.dof, m - 1);
        cr_assert_str_eq(uniformity_flag(r.p_value), "ok", "seed %d: chi2 %g p %g", s + 1, r.chi2, r.p_value);
        sum += r.chi2;
    }
    double mean = sum / seeds, se = sqrt(2.0 * (double)(m - 1)) / sqrt((double)seeds);
    cr_assert(fabs(mean - (double)(m - 1)) <= 5 * se, "mean chi2 %g, dof %llu, se %g", mean,
              (unsigned long long)(m - 1), se);
    keyset_close(ks);
}

/* first8 on 0, 1, 2, ...: u_0 = the key itself, so every first position of
 * a small key reduces to bucket 0. */
Test(uniformity, counter_like_hash_is_caught)
{
    char err[256];
    keyset *ks = keyset_open("seq64", err, sizeof err);
    hasher h;
    cr_assert_eq(hasher_resolve("first8", &h, err, sizeof err), 0);
    uniformity_result r;
    cr_assert_eq(uniformity_measure(&h, SCHEME_DOUBLE, ks, 1024, 20000, 1, 1, &r), 0);
    cr_assert_eq(r.count_max, 20000);
    cr_assert_str_eq(uniformity_flag(r.p_value), "nonuniform");
    keyset_close(ks);
}

Test(uniformity, cli_rows_and_header)
{
    cli_result r = run_cli("uniformity --hash xxh3_64,fnv1a32 --scheme double,ideal --keys random64 --m 1024 --n 2e4 --k 3");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\nhash,scheme,keys,m,n,k,chi2,dof,p_value,flag,") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "\nxxh3_64,double,random64,1024,20000,3,") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "\nideal,ideal,random64,1024,20000,3,") != NULL, "%s", r.out);
    /* 2 hashes x double + one ideal row, a header and 4 metadata lines */
    cr_assert_eq(count_lines(r.out), 3 + 1 + 4, "%s", r.out);
    cli_free(&r);
}

Test(uniformity, help)
{
    cli_result r = run_cli("uniformity --help");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "usage: bloomlab uniformity") != NULL);
    cli_free(&r);
}

/* Bad input: one line on stderr naming the flag, exit 2, no file written. */
static void expect_refused(const char *args, const char *needle)
{
    char *dir = temp_dir();
    char cmd[1024], out[600];
    snprintf(out, sizeof out, "%s/u.csv", dir);
    snprintf(cmd, sizeof cmd, "uniformity %s -o %s", args, out);
    cli_result r = run_cli(cmd);
    cr_assert_eq(r.status, 2, "%s: exit %d", cmd, r.status);
    cr_assert_eq(count_lines(r.err), 1, "%s: stderr '%s'", cmd, r.err);
    cr_assert(strstr(r.err, needle) != NULL, "%s: stderr '%s' lacks '%s'", cmd, r.err, needle);
    cr_assert(!file_exists(out), "%s wrote %s", cmd, out);
    cli_free(&r);
    rmdir(dir);
    free(dir);
}

Test(uniformity, bad_input_is_one_line_and_exit_2)
{
    expect_refused("--hash nosuch", "--hash");
    expect_refused("--scheme triple", "--scheme");
    expect_refused("--keys nosuch", "--keys");
    expect_refused("--m 1", "--m");
    expect_refused("--m 1000 --scheme course", "power of two");
    expect_refused("--n 10 --m 1024", "at least 5");
    expect_refused("--k 65", "--k");
    expect_refused("--m abc", "--m");
    expect_refused("--seed -1", "--seed");
    expect_refused("--bogus", "--bogus");
    expect_refused("--keys course --n 100 --m 16", "--keys");
}
