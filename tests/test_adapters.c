/* test_adapters.c -- real libraries as filter plugins (adapters/, built by
 * `make adapters` when libbloom-dev or libleveldb-dev is present; an
 * adapter not built is skipped, not failed).
 *
 * Each adapter loads through the sweep with its filter made for 1e5 keys
 * (expected_n), answers every present key "present", and at that design
 * load either lands on its own formula within 5 standard errors (the
 * model's SE, fixed seed) or, where it does not keep that claim, the test
 * asserts what it does instead (LevelDB: README.md, "Real libraries as
 * peers").  Nothing is tuned to pass. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>

#include <bloomlab/filter.h>

#include "helpers.h"

#define LIBBLOOM "build/adapters/libbloom.so"
#define LEVELDB "build/adapters/leveldb.so"
#define DESIGN "--expected-n 1e5 --trials 4 --queries 250000 --seed 18 --threads 2 --quiet"

/* The value of column `name` in the first data row of a sweep CSV. */
static double column(const char *csv, const char *name)
{
    const char *p = csv;
    while (*p == '#')
        p = strchr(p, '\n') + 1;
    const char *row = strchr(p, '\n') + 1;
    size_t len = strlen(name);
    int col = 0;
    for (const char *h = p; !(strncmp(h, name, len) == 0 && (h[len] == ',' || h[len] == '\n')); col++) {
        h = strpbrk(h, ",\n");
        cr_assert(h != NULL && *h == ',', "no column %s", name);
        h++;
    }
    for (int i = 0; i < col; i++)
        row = strchr(row, ',') + 1;
    return strtod(row, NULL);
}

/* One sweep cell of the adapter at n keys; the CSV (cli_free it). */
static cli_result sweep(const char *so, const char *m, unsigned k, const char *n)
{
    char args[600];
    snprintf(args, sizeof args, "sweep --filter plugin:%s --m %s --k %u --n %s " DESIGN, so, m, k, n);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
    return r;
}

static void skip_unless_built(const char *so)
{
    if (!file_exists(so))
        cr_skip_test("%s not built (its package's header is absent: make adapters says so)", so);
}

/* libbloom's own sizing, through the adapter's choose (bloom_init). */
static void libbloom_choose(double p, uint64_t *m, unsigned *k)
{
    void *lib = dlopen("./" LIBBLOOM, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib, "%s", dlerror());
    const bloomlab_filter_api *api = dlsym(lib, BLOOMLAB_FILTER_SYMBOL);
    cr_assert(api != NULL && api->choose != NULL);
    cr_assert_eq(api->choose(100000, p, m, k), 0);
    dlclose(lib);
}

/* At design load libbloom keeps p, on the classic formula at its own m and k. */
static void libbloom_keeps(double p, const char *m_text, unsigned k_ini)
{
    skip_unless_built(LIBBLOOM);
    uint64_t m;
    unsigned k;
    libbloom_choose(p, &m, &k);
    /* experiments/peer_libraries.ini states libbloom's own m and k */
    cr_assert_eq(m, strtoull(m_text, NULL, 10), "libbloom picks m = %llu for p = %g", (unsigned long long)m, p);
    cr_assert_eq(k, k_ini, "libbloom picks k = %u for p = %g", k, p);
    cli_result r = sweep(LIBBLOOM, m_text, k, "1e5");
    cr_assert_eq(column(r.out, "m"), (double)m, "the bits libbloom built: %s", r.out);
    cr_assert_eq(column(r.out, "false_negatives"), 0, "%s", r.out);
    cr_assert_eq(column(r.out, "present_queries"), 40000, "%s", r.out);
    double fpr = column(r.out, "fpr"), own = column(r.out, "fpr_exact"), se = column(r.out, "fpr_se");
    cr_assert(se > 0 && fabs(fpr - own) <= 5 * se, "fpr %g vs its classic %g: %.2f se", fpr, own, (fpr - own) / se);
    cr_assert(fabs(own - p) < 0.01 * p, "its formula at its m and k: %g, p = %g", own, p);
    cr_assert_float_eq(own, column(r.out, "fpr_classic"), 1e-9 * own);
    cli_free(&r);
}

Test(adapters, libbloom_at_one_percent, .timeout = 60) { libbloom_keeps(0.01, "958505", 7); }

Test(adapters, libbloom_at_one_per_mille, .timeout = 60) { libbloom_keeps(0.001, "1437758", 10); }

/* A k that is not libbloom's own is refused, never relabelled. */
Test(adapters, libbloom_refuses_another_k, .timeout = 60)
{
    skip_unless_built(LIBBLOOM);
    cli_result r = run_cli("sweep --filter plugin:" LIBBLOOM " --m 958505 --k 6 --n 1e5 " DESIGN);
    cr_assert_eq(r.status, 2, "%s", r.out);
    cr_assert_eq(r.out[0], '\0');
    cli_free(&r);
}

/* Past its design load the rate grows as the classic formula says. */
Test(adapters, libbloom_overloaded_follows_its_formula, .timeout = 60)
{
    skip_unless_built(LIBBLOOM);
    cli_result r = sweep(LIBBLOOM, "958505", 7, "2e5");
    double fpr = column(r.out, "fpr"), own = column(r.out, "fpr_exact"), se = column(r.out, "fpr_se");
    cr_assert(fpr > 0.1 && fabs(fpr - own) <= 5 * se, "fpr %g vs %g", fpr, own);
    cr_assert_eq(column(r.out, "false_negatives"), 0);
    cli_free(&r);
}

/* LevelDB at 10 bits per key: sized for the keys it is built over (m =
 * 10 n at every load), k = 6 (util/bloom.cc: (int)(10 x 0.69)), no false
 * negative -- and it does NOT land on the classic formula at that m and k
 * (0.84%): with 1e5 random 8-byte keys it answers about 1.45% (its header
 * promises "~1%").  Asserted as it is: far above the formula, within a
 * band around what it does. */
Test(adapters, leveldb_at_ten_bits_per_key, .timeout = 60)
{
    skip_unless_built(LEVELDB);
    cli_result r = sweep(LEVELDB, "1e6", 6, "1e5");
    cr_assert_eq(column(r.out, "m"), 1000000, "%s", r.out);
    cr_assert_eq(column(r.out, "memory_bytes"), 125001, "%s", r.out); /* its bytes and the k byte */
    cr_assert_eq(column(r.out, "false_negatives"), 0, "%s", r.out);
    double fpr = column(r.out, "fpr"), own = column(r.out, "fpr_exact"), se = column(r.out, "fpr_se");
    cr_assert_float_eq(own, pow(1 - exp(-0.6), 6), 1e-9, "%s", r.out);
    cr_assert((fpr - own) / se > 10, "LevelDB on the classic formula now? fpr %g vs %g (%.1f se): update README.md",
              fpr, own, (fpr - own) / se);
    cr_assert(fpr > 0.012 && fpr < 0.017, "fpr %g", fpr);
    cr_assert(column(r.out, "fill") < column(r.out, "fill_expected") - 0.005, "%s", r.out);
    cli_free(&r);
    /* four times the design load: a filter four times as large */
    r = sweep(LEVELDB, "1e6", 6, "4e5");
    cr_assert_eq(column(r.out, "m"), 4000000, "%s", r.out);
    cr_assert(column(r.out, "fpr") < 0.02 && column(r.out, "false_negatives") == 0, "%s", r.out);
    cli_free(&r);
}

Test(adapters, leveldb_refuses_another_k, .timeout = 60)
{
    skip_unless_built(LEVELDB);
    cli_result r = run_cli("sweep --filter plugin:" LEVELDB " --m 1e6 --k 7 --n 1e5 " DESIGN);
    cr_assert_eq(r.status, 2, "%s", r.out);
    cli_free(&r);
}

/* expected_n is a plugin's: a built-in layout refuses it. */
Test(adapters, expected_n_is_for_plugins, .timeout = 60)
{
    cli_result r = run_cli("sweep --filter standard --m 1e6 --k 6 --n 1e5 " DESIGN);
    cr_assert_eq(r.status, 2, "%s", r.out);
    cr_assert(strstr(r.err, "expected_n") != NULL, "%s", r.err);
    cli_free(&r);
}

/* The experiment file runs whole and states libbloom's own sizes. */
Test(adapters, peer_libraries_experiment_runs, .timeout = 120)
{
    skip_unless_built(LIBBLOOM);
    skip_unless_built(LEVELDB);
    char *dir = temp_dir(), args[700];
    snprintf(args, sizeof args, "run experiments/peer_libraries.ini -o %s/p.csv --threads 2 --quiet", dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    snprintf(args, sizeof args, "%s/p.csv", dir);
    char *out = slurp(args);
    cr_assert_eq(count_lines(strstr(out, "experiment,")), 16, "%s", out);
    cr_assert(strstr(out, "false_negatives: cell") == NULL, "%s", out);
    free(out);
    cli_free(&r);
    remove_tree(dir);
}
