/* test_calc.c -- the sizing calculator's pure functions. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calc.h"
#include "theory.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int parse(int argc, char **argv, struct calc_input *in, char *err)
{
    return calc_parse(argc, argv, in, err, 256);
}

Test(calc, numbers)
{
    double v;
    cr_expect(calc_number("1e6", &v) == 0 && v == 1e6);
    cr_expect(calc_number("2^20", &v) == 0 && v == 1048576);
    cr_expect(calc_number("0.01", &v) == 0 && v == 0.01);
    cr_expect(calc_number("12abc", &v) != 0);
    cr_expect(calc_number("", &v) != 0);
    cr_expect(calc_number("inf", &v) != 0);
    cr_expect(calc_number("nan", &v) != 0);
    cr_expect(calc_number("1e999", &v) != 0);
}

Test(calc, the_usual_example)
{
    char *argv[] = {"calc", "--n", "1e6", "--p", "0.01"};
    struct calc_input in;
    struct calc_result r;
    char err[256];
    cr_assert(parse(ARGC(argv), argv, &in, err) == 0, "%s", err);
    cr_assert(calc_solve(&in, &r, err, sizeof err) == 0, "%s", err);
    cr_expect(r.n == 1000000);
    cr_expect(r.m == 9585059, "m = %llu", (unsigned long long)r.m);
    cr_expect(r.bytes == 1198133, "bytes = %llu", (unsigned long long)r.bytes);
    cr_expect(r.k == 7 && !r.k_given, "k = %u", r.k);
    cr_expect(fabs(r.bits_per_item - 9.585059) < 1e-9);
    char buf[32];
    snprintf(buf, sizeof buf, "%.2f", r.bits_per_item);
    cr_expect_str_eq(buf, "9.59");
    calc_human_bytes((double)r.bytes, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "1.20 MB");
    calc_human_bytes((double)r.bytes, 1, buf, sizeof buf);
    cr_expect_str_eq(buf, "1.14 MiB");
    /* achieved rate: just about the target, exact a hair above classic */
    cr_expect(fabs(r.p_classic / 0.01 - 1) < 0.02, "classic %g", r.p_classic);
    cr_expect(r.p_exact > r.p_classic && r.p_exact < r.p_classic * 1.001);
    cr_expect(r.p_exact == theory_fpr_exact(r.m, r.n, 7));
}

Test(calc, other_pairs)
{
    struct calc_input in;
    struct calc_result r;
    char err[256];

    char *mp[] = {"calc", "--m", "9585059", "--p=0.01"};
    cr_assert(parse(ARGC(mp), mp, &in, err) == 0, "%s", err);
    cr_assert(calc_solve(&in, &r, err, sizeof err) == 0, "%s", err);
    cr_expect(r.n == 1000000, "n = %llu", (unsigned long long)r.n);
    cr_expect(r.k == 7);

    char *nm[] = {"calc", "--n", "1000", "--m", "2^13"};
    cr_assert(parse(ARGC(nm), nm, &in, err) == 0, "%s", err);
    cr_assert(calc_solve(&in, &r, err, sizeof err) == 0, "%s", err);
    cr_expect(r.m == 8192 && r.n == 1000 && !r.have_p_target);
    cr_expect(r.k == theory_k_opt_int(8192, 1000));
    cr_expect(r.bytes == 1024);

    /* k given: the least m whose classic rate with that k meets p */
    char *nk[] = {"calc", "--n", "1e6", "--p", "0.01", "--k", "3"};
    cr_assert(parse(ARGC(nk), nk, &in, err) == 0, "%s", err);
    cr_assert(calc_solve(&in, &r, err, sizeof err) == 0, "%s", err);
    cr_expect(r.k == 3 && r.k_given);
    cr_expect(theory_fpr_classic(r.m, r.n, 3) <= 0.01);
    cr_expect(theory_fpr_classic(r.m - 1, r.n, 3) > 0.01);
    cr_expect(r.m > 9585059); /* k = 3 is not optimal: it costs bits */
}

static void expect_bad(int argc, char **argv, const char *want)
{
    struct calc_input in;
    struct calc_result r;
    char err[256] = "";
    int rc = parse(argc, argv, &in, err);
    if (rc == 0)
        rc = calc_solve(&in, &r, err, sizeof err);
    cr_expect(rc == -1, "accepted: %s", want);
    cr_expect(strstr(err, want) != NULL, "error '%s' lacks '%s'", err, want);
    cr_expect(strchr(err, '\n') == NULL, "error is not one line: %s", err);
}

Test(calc, bad_input)
{
    char *p_big[] = {"calc", "--n", "1e6", "--p", "1.5"};
    expect_bad(ARGC(p_big), p_big, "--p: 1.5 is not a probability in (0, 1)");
    char *p_zero[] = {"calc", "--n", "1e6", "--p", "0"};
    expect_bad(ARGC(p_zero), p_zero, "--p: 0 is not a probability");
    char *p_text[] = {"calc", "--n", "1e6", "--p", "abc"};
    expect_bad(ARGC(p_text), p_text, "--p: abc is not a number");
    char *n_zero[] = {"calc", "--n", "0", "--p", "0.1"};
    expect_bad(ARGC(n_zero), n_zero, "--n: 0 is not a whole number >= 1");
    char *n_frac[] = {"calc", "--n", "2.5", "--p", "0.1"};
    expect_bad(ARGC(n_frac), n_frac, "--n: 2.5");
    char *m_neg[] = {"calc", "--m", "-8", "--p", "0.1"};
    expect_bad(ARGC(m_neg), m_neg, "--m: -8 is not a whole number >= 1");
    char *k_big[] = {"calc", "--n", "10", "--p", "0.1", "--k", "65"};
    expect_bad(ARGC(k_big), k_big, "--k: 65 is not a whole number in 1..64");
    char *k_zero[] = {"calc", "--n", "10", "--p", "0.1", "--k=0"};
    expect_bad(ARGC(k_zero), k_zero, "--k: 0 is not");
    char *unknown[] = {"calc", "--n", "10", "--q", "3"};
    expect_bad(ARGC(unknown), unknown, "--q: unknown flag");
    char *bare[] = {"calc", "n", "10"};
    expect_bad(ARGC(bare), bare, "n: unknown flag");
    char *missing_value[] = {"calc", "--n", "10", "--p"};
    expect_bad(ARGC(missing_value), missing_value, "--p: missing value");
    char *one[] = {"calc", "--n", "10"};
    expect_bad(ARGC(one), one, "give exactly two of --n ITEMS, --p RATE, --m BITS");
    char *three[] = {"calc", "--n", "10", "--m", "100", "--p", "0.1"};
    expect_bad(ARGC(three), three, "too many inputs");
    char *tiny_m[] = {"calc", "--m", "2", "--p", "1e-9"};
    expect_bad(ARGC(tiny_m), tiny_m, "--m: 2 bits hold no item");
}

Test(calc, help)
{
    char *argv[] = {"calc", "--n", "bogus", "--help"};
    struct calc_input in;
    char err[256];
    cr_expect(parse(ARGC(argv), argv, &in, err) == 1);
}

Test(calc, human_bytes)
{
    char buf[32];
    calc_human_bytes(812, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "812 B");
    calc_human_bytes(1000, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "1.00 kB");
    calc_human_bytes(1023, 1, buf, sizeof buf);
    cr_expect_str_eq(buf, "1023 B");
    calc_human_bytes(1048576, 1, buf, sizeof buf);
    cr_expect_str_eq(buf, "1.00 MiB");
    calc_human_bytes(999999.9, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "1.00 MB");
    calc_human_bytes(1.5e12, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "1.50 TB");
}
