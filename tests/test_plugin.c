/* test_plugin.c -- a user's hash from a shared library, through the CLI.
 *
 * The Makefile builds build/plugin_example.so (examples/plugin_hash.c:
 * FNV-1a 64 with a SplitMix64 finaliser) before the tests run.  A plugin
 * counts as a 64-bit hash; a good one must land on the formula like any
 * good built-in hash, and every way of naming it badly is one line on
 * stderr and exit status 2, with no output file written.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "helpers.h"

#define PLUGIN "plugin:build/plugin_example.so:example_hash"
#define SWEEP_GRID "--bits-per-item 10 --n 20000 --k 7 --trials 10 --queries 50000 --threads 2 --quiet"

/* Field number `col` (0-based) of the first data row of a sweep's CSV. */
static double first_row_field(const char *csv, int col)
{
    const char *p = csv;
    while (*p == '#')
        p = strchr(p, '\n') + 1;
    p = strchr(p, '\n') + 1; /* past the header */
    for (int i = 0; i < col; i++)
        p = strchr(p, ',') + 1;
    return strtod(p, NULL);
}

Test(plugin, example_hash_lands_on_the_formula, .timeout = 60)
{
    cr_assert(file_exists("build/plugin_example.so"), "make build/plugin_example.so first");
    cli_result r = run_cli("sweep --hash " PLUGIN " --scheme double --keys random64 " SWEEP_GRID);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, ",standard," PLUGIN ",double,random64,200000,20000,7,") != NULL, "%s", r.out);
    /* header: ...,fpr(12),fpr_lo,fpr_hi,fpr_se(15),fpr_classic,fpr_exact(17),...,z(21) */
    double fpr = first_row_field(r.out, 12), se = first_row_field(r.out, 15), exact = first_row_field(r.out, 17);
    cr_assert(fpr > 0 && se > 0, "%s", r.out);
    cr_assert(fabs(fpr - exact) <= 5 * se, "plugin fpr %g vs exact %g: %.2f se", fpr, exact, (fpr - exact) / se);
    cli_free(&r);
}

/* The same hash through an experiment file and through the chi-square. */
Test(plugin, run_and_uniformity_take_a_plugin, .timeout = 60)
{
    char *dir = temp_dir();
    char ini[600], csv[600], cmd[1400];
    snprintf(ini, sizeof ini, "%s/p.ini", dir);
    snprintf(csv, sizeof csv, "%s/p.csv", dir);
    FILE *f = fopen(ini, "w");
    fprintf(f, "[experiment]\nname = p\nhash = %s, xxh3_64\nscheme = independent, double\nkeys = urls\n"
               "bits_per_item = 8\nn = 5000\nk = 5\ntrials = 4\nqueries = 20000\n", PLUGIN);
    fclose(f);
    snprintf(cmd, sizeof cmd, "run %s -o %s --threads 2 --quiet", ini, csv);
    cli_result r = run_cli(cmd);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *out = slurp(csv);
    cr_assert_not_null(out);
    cr_assert(strstr(out, "p,standard," PLUGIN ",independent,urls,40000,5000,5,") != NULL, "%s", out);
    cr_assert(strstr(out, "p,standard," PLUGIN ",double,urls,40000,5000,5,") != NULL, "%s", out);
    free(out);
    cli_free(&r);
    unlink(ini);
    unlink(csv);
    rmdir(dir);
    free(dir);

    r = run_cli("uniformity --hash " PLUGIN " --keys seq64,urls --m 1024 --n 5e4 --k 7");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\n" PLUGIN ",double,seq64,1024,50000,7,") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, ",nonuniform,") == NULL && strstr(r.out, ",too_uniform,") == NULL, "%s", r.out);
    cli_free(&r);
}

static void expect_refused(const char *hash, const char *needle)
{
    char *dir = temp_dir();
    char cmd[1400], out[600];
    snprintf(out, sizeof out, "%s/x.csv", dir);
    const char *forms[] = {"sweep --hash %s --n 100 --m 1000 -o %s", "uniformity --hash %s -o %s"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        snprintf(cmd, sizeof cmd, forms[i], hash, out);
        cli_result r = run_cli(cmd);
        cr_assert_eq(r.status, 2, "%s: exit %d", cmd, r.status);
        cr_assert_eq(count_lines(r.err), 1, "%s: stderr '%s'", cmd, r.err);
        cr_assert(strstr(r.err, needle) != NULL, "%s: stderr '%s' lacks '%s'", cmd, r.err, needle);
        cr_assert(!file_exists(out), "%s wrote its output", cmd);
        cli_free(&r);
    }
    rmdir(dir);
    free(dir);
}

Test(plugin, bad_path_is_one_line)
{
    expect_refused("plugin:build/no_such_plugin.so:example_hash", "no_such_plugin.so");
}

Test(plugin, missing_symbol_is_one_line)
{
    expect_refused("plugin:build/plugin_example.so:no_such_symbol", "no_such_symbol");
}

Test(plugin, non_library_is_one_line)
{
    expect_refused("plugin:Makefile:example_hash", "Makefile");
    expect_refused("plugin:build:example_hash", "build");
}

Test(plugin, malformed_spec_is_one_line)
{
    expect_refused("plugin:build/plugin_example.so", "plugin:PATH.so:SYMBOL");
    expect_refused("plugin:", "plugin:PATH.so:SYMBOL");
}
