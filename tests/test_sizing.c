/* test_sizing.c -- the split-block sizing rules (sizing.h), calc --filter
 * splitblock, and the experiment keys sizing and p.
 *
 * Known answers: the writers' own tables.  apache/arrow-rs main
 * (cd7c6b83abd6605a83014b3d043930a592542510) parquet/src/bloom_filter/mod.rs
 * documents the sizes of the classic rule and tests num_of_bits_from_ndv_fpp;
 * its pull request #9206 (d7c1e85507dbab7d4d745ba62bb0610cb28e56fe) tests
 * the compensated bits and gives compensated sizes in its description. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/calc.h"
#include "harness/experiment.h"
#include "helpers.h"
#include "model/sizing.h"
#include "harness/sweep.h"
#include "model/theory.h"

#define NO_LIMIT (1ULL << 62)

typedef struct {
    double p;
    uint64_t n, value;
} known;

Test(sizing, classic_bits_are_the_writers)
{
    /* main's test_num_of_bits_from_ndv_fpp: the formula's bits, truncated */
    static const known BITS[] = {{0.1, 10, 57},         {0.01, 10, 96},         {0.001, 10, 146},
                                 {0.1, 1000, 5772},     {0.01, 10000, 96815},   {0.001, 100000, 1460769},
                                 {0.1, 1000000, 5772541}, {0.001, 1000000, 14607697}};
    for (size_t i = 0; i < sizeof BITS / sizeof BITS[0]; i++)
        cr_assert_eq((uint64_t)((double)BITS[i].n * sizing_classic_bits_per_key(BITS[i].p)), BITS[i].value,
                     "n %llu p %g", (unsigned long long)BITS[i].n, BITS[i].p);
    /* main's documentation table: NDV, FPP -> KiB after the power of two */
    static const known KIB[] = {{0.1, 10000, 8},      {0.01, 10000, 16},    {0.001, 10000, 32},
                                {1e-4, 10000, 32},    {0.1, 100000, 128},   {0.01, 100000, 128},
                                {0.001, 100000, 256}, {1e-4, 100000, 512},  {1e-5, 100000, 512},
                                {0.1, 1000000, 1024}, {0.01, 1000000, 2048}, {0.001, 1000000, 2048},
                                {1e-4, 1000000, 4096}, {1e-5, 1000000, 4096}, {1e-6, 1000000, 8192}};
    for (size_t i = 0; i < sizeof KIB / sizeof KIB[0]; i++)
        cr_assert_eq(sizing_bits(SIZING_PARQUET_CLASSIC, KIB[i].n, KIB[i].p, NO_LIMIT), 8192 * KIB[i].value,
                     "n %llu p %g", (unsigned long long)KIB[i].n, KIB[i].p);
    /* the clamps: 32 B for one key, 128 MiB for 1e9 keys at 1e-5 */
    cr_assert_eq(sizing_bits(SIZING_PARQUET_CLASSIC, 1, 0.1, NO_LIMIT), 256);
    cr_assert_eq(sizing_bits(SIZING_PARQUET_CLASSIC, 1000000000, 1e-5, NO_LIMIT), 8ULL << 27);
}

Test(sizing, compensated_bits_are_arrow_rs_pr_9206)
{
    /* the pull request's test: ceil(n c') */
    static const known BITS[] = {{0.01, 1000, 10682},      {0.001, 1000, 16608},    {0.0001, 1000, 26091},
                                 {0.00001, 1000, 49667},   {0.1, 10000, 67726},     {0.00001, 10000, 496665},
                                 {0.01, 100000, 1068153},  {0.0001, 100000, 2609082}, {0.1, 1000000, 6772542},
                                 {0.001, 1000000, 16607698}, {0.00001, 1000000, 49666467}};
    for (size_t i = 0; i < sizeof BITS / sizeof BITS[0]; i++) {
        double c = sizing_arrow_rs_compensated(sizing_classic_bits_per_key(BITS[i].p));
        cr_assert_eq((uint64_t)ceil((double)BITS[i].n * c), BITS[i].value, "n %llu p %g",
                     (unsigned long long)BITS[i].n, BITS[i].p);
    }
    /* its description: bytes after the power of two */
    static const known BYTES[] = {{0.1, 100, 128},  {0.1, 1000, 1024},  {0.1, 10000, 16384},
                                  {0.01, 100, 256}, {0.01, 1000, 2048}, {0.01, 10000, 16384}};
    for (size_t i = 0; i < sizeof BYTES / sizeof BYTES[0]; i++)
        cr_assert_eq(sizing_bits(SIZING_ARROW_RS, BYTES[i].n, BYTES[i].p, NO_LIMIT), 8 * BYTES[i].value,
                     "n %llu p %g", (unsigned long long)BYTES[i].n, BYTES[i].p);
    /* the table's ends and its interpolation */
    cr_assert_float_eq(sizing_arrow_rs_compensated(4.0), 6.0, 1e-12);
    cr_assert_float_eq(sizing_arrow_rs_compensated(5.5), 6.5, 1e-12);
    cr_assert_float_eq(sizing_arrow_rs_compensated(13.5), 15.0, 1e-12);
    cr_assert_float_eq(sizing_arrow_rs_compensated(33.0), 74.0, 1e-12);
    cr_assert_float_eq(sizing_arrow_rs_compensated(34.0), 2.65 * 34, 1e-12);
}

static const double PS[] = {0.1, 0.05, 0.01, 1e-3, 1e-4, 1e-5};
static const uint64_t NS[] = {1, 1000, 1000000, 1000000000};

static int is_power_of_two(uint64_t v) { return v && !(v & (v - 1)); }

Test(sizing, every_rule_gives_whole_blocks_and_its_rounding)
{
    for (size_t i = 0; i < 6; i++)
        for (size_t j = 0; j < 4; j++) {
            uint64_t m[SIZING_COUNT];
            for (int r = 1; r < SIZING_COUNT; r++) {
                m[r] = sizing_bits((sizing_rule)r, NS[j], PS[i], NO_LIMIT);
                cr_assert(m[r] >= 256 && m[r] % 256 == 0, "%s: m = %llu", sizing_name((sizing_rule)r),
                          (unsigned long long)m[r]);
            }
            cr_assert(is_power_of_two(m[SIZING_PARQUET_CLASSIC]) && is_power_of_two(m[SIZING_ARROW_RS]) &&
                      is_power_of_two(m[SIZING_BLOOMLAB_POW2]));
            cr_assert_leq(m[SIZING_BLOOMLAB], m[SIZING_BLOOMLAB_POW2]);
            cr_assert_lt(m[SIZING_BLOOMLAB_POW2], 2 * m[SIZING_BLOOMLAB]);
            /* without the clamp at 128 MiB the power of two is at or above the formula's size */
            if (m[SIZING_PARQUET_CLASSIC] < (8ULL << 27))
                cr_assert_leq(m[SIZING_PARQUET_CLASSIC_NOPOW2], m[SIZING_PARQUET_CLASSIC] + 256);
            if (m[SIZING_ARROW_RS] < (8ULL << 27))
                cr_assert_leq(m[SIZING_ARROW_RS_NOPOW2], m[SIZING_ARROW_RS] + 256);
        }
}

/* The bloomlab rule meets p, and one block fewer would not (the fewest). */
Test(sizing, bloomlab_rule_is_the_fewest_blocks_meeting_p)
{
    for (size_t i = 0; i < 6; i++)
        for (size_t j = 0; j < 4; j++) {
            uint64_t m = sizing_bits(SIZING_BLOOMLAB, NS[j], PS[i], NO_LIMIT);
            cr_assert_leq(theory_fpr_splitblock(m, NS[j], 1), PS[i], "n %llu p %g", (unsigned long long)NS[j], PS[i]);
            if (m > 256)
                cr_assert_gt(theory_fpr_splitblock(m - 256, NS[j], 1), PS[i]);
            uint64_t pow2 = sizing_bits(SIZING_BLOOMLAB_POW2, NS[j], PS[i], NO_LIMIT);
            cr_assert_leq(theory_fpr_splitblock(pow2, NS[j], 1), PS[i]);
            if (pow2 > 256)
                cr_assert_gt(theory_fpr_splitblock(pow2 / 2, NS[j], 1), PS[i]);
        }
    cr_assert_eq(sizing_bits(SIZING_BLOOMLAB, 1000000000, 1e-5, 1ULL << 20), 0, "past max_bits: 0");
}

/* The figures: at the classic formula's own size the exact rate is
 * 1.46 p at 1% and 5.5 p at 1e-5; the compensated rule misses by 5-9%
 * between 1e-3 and 1e-4. */
Test(sizing, the_classic_formula_misses)
{
    const uint64_t n = 1000000;
    double at_1pct = theory_fpr_splitblock(sizing_bits(SIZING_PARQUET_CLASSIC_NOPOW2, n, 0.01, NO_LIMIT), n, 1);
    double at_1e5 = theory_fpr_splitblock(sizing_bits(SIZING_PARQUET_CLASSIC_NOPOW2, n, 1e-5, NO_LIMIT), n, 1);
    cr_assert(at_1pct > 1.45e-2 && at_1pct < 1.47e-2, "%g", at_1pct);
    cr_assert(at_1e5 > 5.4e-5 && at_1e5 < 5.6e-5, "%g", at_1e5);
    for (double p = 1e-3; p >= 1e-4; p /= 10) {
        double r = theory_fpr_splitblock(sizing_bits(SIZING_ARROW_RS_NOPOW2, n, p, NO_LIMIT), n, 1) / p;
        cr_assert(r > 1.04 && r < 1.10, "arrow-rs-nopow2 at p %g: %g p", p, r);
    }
}

/* calc --filter splitblock meets every p, and the size one block smaller does not. */
Test(sizing, calc_splitblock_meets_p)
{
    static const char *const P_TEXT[] = {"0.1", "0.05", "0.01", "1e-3", "1e-4", "1e-5"};
    static const char *const N_TEXT[] = {"1e3", "1e6", "1e9"};
    for (size_t i = 0; i < 6; i++)
        for (size_t j = 0; j < 3; j++) {
            char *argv[] = {"calc", "--filter", "splitblock", "--n", (char *)N_TEXT[j], "--p", (char *)P_TEXT[i]};
            struct calc_input in;
            struct calc_result r;
            char err[256];
            cr_assert_eq(calc_parse(7, argv, &in, err, sizeof err), 0, "%s", err);
            cr_assert_eq(calc_solve(&in, &r, err, sizeof err), 0, "%s", err);
            cr_assert_eq(r.k, 8);
            cr_assert_eq(r.m % 256, 0);
            cr_assert_leq(r.p_exact, in.p, "n %s p %s: %g", N_TEXT[j], P_TEXT[i], r.p_exact);
            cr_assert_float_eq(r.p_exact, theory_fpr_splitblock(r.m, r.n, 1), 1e-300);
            cr_assert_gt(theory_fpr_splitblock(r.m - 256, r.n, 1), in.p, "n %s p %s: not the fewest", N_TEXT[j],
                         P_TEXT[i]);
        }
    /* m and p: the most items; their rate meets p and one more does not */
    char *argv[] = {"calc", "--filter=splitblock", "--m", "2^20", "--p", "0.01"};
    struct calc_input in;
    struct calc_result r;
    char err[256];
    cr_assert_eq(calc_parse(6, argv, &in, err, sizeof err), 0, "%s", err);
    cr_assert_eq(calc_solve(&in, &r, err, sizeof err), 0, "%s", err);
    cr_assert_leq(theory_fpr_splitblock(r.m, r.n, 1), 0.01);
    cr_assert_gt(theory_fpr_splitblock(r.m, r.n + 1, 1), 0.01);
}

Test(sizing, calc_refuses_with_one_line)
{
    cli_result r = run_cli("calc --filter cuckoo --n 10 --p 0.1");
    cr_assert_eq(r.status, 2);
    cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
    cr_assert(strstr(r.err, "--filter") && strstr(r.err, "cuckoo"), "%s", r.err);
    cli_free(&r);
    r = run_cli("calc --filter splitblock --n 10 --p 0.1 --k 7");
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "k is 8"), "%s", r.err);
    cli_free(&r);
}

/* ---- the experiment keys ------------------------------------------------ */

static experiment load_text(const char *text, int *rc, char *err, size_t err_size, char *path, size_t path_size)
{
    char *dir = temp_dir();
    snprintf(path, path_size, "%s/e.ini", dir);
    write_text(path, text);
    experiment e;
    *rc = experiment_load(path, "quick", &e, err, err_size);
    remove_tree(dir);
    return e;
}

Test(sizing, experiment_sizes_each_cell_by_its_rule)
{
    char err[1024], path[512];
    int rc;
    experiment e = load_text("[experiment]\nfilter = splitblock\nscheme = parquet, ideal\nhash = xxh3_64, xxh64\n"
                             "n = 1000, 1e5\nsizing = parquet-classic, bloomlab\np = 0.01, 1e-4\n",
                             &rc, err, sizeof err, path, sizeof path);
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert_eq(e.count, 2 * 2 * 2 * 2, "parquet once (not per hash) and ideal once: %zu", e.count);
    for (size_t i = 0; i < e.count; i++) {
        const cell *c = &e.cells[i];
        cr_assert_eq(c->k, 8);
        cr_assert_eq(c->m, sizing_bits(c->sizing, c->n, c->p_target, NO_LIMIT));
        cr_assert_str_eq(cell_hash_name(&e, c), c->scheme == SCHEME_PARQUET ? "xxh64" : "ideal");
    }
    experiment_free(&e);
}

/* Each mistake: one line, FILE:LINE first, naming the value. */
static void expect_error(const char *text, int line, const char *value)
{
    char err[1024] = "", path[512], where[600];
    int rc;
    experiment e = load_text(text, &rc, err, sizeof err, path, sizeof path);
    cr_assert_eq(rc, -1, "accepted:\n%s", text);
    cr_assert_eq(e.count, 0);
    snprintf(where, sizeof where, "%s:%d: ", path, line);
    cr_assert(strncmp(err, where, strlen(where)) == 0, "error does not start with %s: %s", where, err);
    cr_assert(strstr(err, value) != NULL, "error does not name '%s': %s", value, err);
    cr_assert(strchr(err, '\n') == NULL);
}

Test(sizing, experiment_mistakes)
{
    const char *head = "[experiment]\nfilter = splitblock\nn = 1000\n";
    char text[512];
    snprintf(text, sizeof text, "%ssizing = parquet-classic, cuckoo\np = 0.01\n", head);
    expect_error(text, 4, "unknown sizing rule 'cuckoo'");
    snprintf(text, sizeof text, "%ssizing = bloomlab\np = 0.01, 1.5\n", head);
    expect_error(text, 5, "p = 1.5 is not a rate in (0, 1)");
    snprintf(text, sizeof text, "%ssizing = bloomlab\np = 0\n", head);
    expect_error(text, 5, "p = 0 is not a rate");
    snprintf(text, sizeof text, "%ssizing = bloomlab\np = 1e-3x\n", head);
    expect_error(text, 5, "'1e-3x' is not a number");
    snprintf(text, sizeof text, "%sm = 1e6\nsizing = bloomlab\np = 0.01\n", head);
    expect_error(text, 5, "not two of them (m at ");
    snprintf(text, sizeof text, "%sm = 1e6\np = 0.01\n", head);
    expect_error(text, 5, "give it with sizing = RULE");
    snprintf(text, sizeof text, "%ssizing = arrow-rs\n", head);
    expect_error(text, 4, "sizing = arrow-rs needs p");
    expect_error("[experiment]\nfilter = standard\nn = 1000\nsizing = bloomlab\np = 0.01\n", 2,
                 "it needs filter splitblock, not standard");
    expect_error("[experiment]\nfilter = blocked512\nscheme = parquet\nn = 1000\nm = 1e4\n", 2,
                 "scheme parquet is the Parquet format's split-block hash: it needs filter splitblock");
}

Test(sizing, a_run_refuses_a_bad_rule_with_exit_2)
{
    char *dir = temp_dir(), path[512];
    snprintf(path, sizeof path, "%s/e.ini", dir);
    write_text(path, "[experiment]\nfilter = splitblock\nn = 1000\nsizing = parquet\np = 0.01\n");
    char args[1024];
    snprintf(args, sizeof args, "run %s -o %s/out.csv", path, dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 2);
    cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
    cr_assert(strstr(r.err, "e.ini:4: unknown sizing rule 'parquet'"), "%s", r.err);
    char out[600];
    snprintf(out, sizeof out, "%s/out.csv", dir);
    cr_assert(!file_exists(out), "no output on bad input");
    cli_free(&r);
    remove_tree(dir);
}

/* A sized sweep writes the rule and p into its rows, and its parquet rows
 * measure the exact rate within 5 SE (the built filter's spread counted). */
Test(sizing, sweep_rows_carry_rule_and_p)
{
    cli_result r = run_cli("sweep --filter splitblock --scheme parquet --n 20000 --sizing parquet-classic-nopow2,bloomlab "
                           "--p 0.01 --trials 2 --queries 200000 --quiet --threads 2");
    cr_assert_eq(r.status, 0, "%s", r.err);
    int rows = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || strncmp(line, "experiment,", 11) == 0)
            continue;
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", line);
        /* columns by position: 7 n, 10 trials, 11 queries, 13 fpr, 18 fpr_exact, 36 sizing, 37 p_target, 38 var */
        char *f[96];
        int nf = 0, want = 1;
        for (const char *h = SWEEP_HEADER; *h; h++)
            want += *h == ',';
        for (char *p = copy, *comma; nf < 96 && p; p = comma ? comma + 1 : NULL) {
            comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
            f[nf++] = p;
        }
        cr_assert_eq(nf, want, "%d fields", nf);
        cr_assert(strcmp(f[35], "parquet-classic-nopow2") == 0 || strcmp(f[35], "bloomlab") == 0, "%s", f[35]);
        cr_assert_float_eq(atof(f[36]), 0.01, 1e-15);
        cr_assert_str_eq(f[2], "xxh64");
        double q = atof(f[10]) * atof(f[9]), fpr = atof(f[12]), exact = atof(f[17]), var_f = atof(f[37]);
        double se = sqrt(((exact - exact * exact - var_f) / atof(f[10]) + var_f) / atof(f[9]));
        cr_assert_lt(fabs(fpr - exact), 5 * se, "%s: fpr %g exact %g se %g (q %g)", f[35], fpr, exact, se, q);
        rows++;
    }
    cr_assert_eq(rows, 2);
    cli_free(&r);
}
