/* test_filter_plugin.c -- a user's whole filter from a shared library
 * (bloomlab/filter.h), through the CLI.
 *
 * The Makefile builds build/plugin_filter.so (examples/plugin_filter.c: a
 * standard Bloom filter of its own, with its own formula) before the tests
 * run.  Its rows must land on the classic formula like the standard layout
 * does, with no false negative and its fill reported; every way a plugin
 * can be bad is one line naming it, exit status 2 and no output written;
 * and a plugin that loses keys has its false negatives counted and flagged.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "helpers.h"

#define EXAMPLE "plugin:build/plugin_filter.so"
#define GRID "--n 20000 --bits-per-item 10 --k 7 --trials 10 --queries 50000 --seed 7 --threads 2 --quiet"

/* The value of column `name` in data row `row` (0-based) of a sweep CSV
 * whose fields hold no commas; "" when there is none.  Static storage. */
static const char *field(const char *csv, int row, const char *name)
{
    static char value[256];
    const char *p = csv;
    while (*p == '#')
        p = strchr(p, '\n') + 1;
    int col = 0;
    const char *h = p;
    size_t len = strlen(name);
    while (!(strncmp(h, name, len) == 0 && (h[len] == ',' || h[len] == '\n'))) {
        h = strpbrk(h, ",\n");
        cr_assert(h != NULL && *h == ',', "no column %s", name);
        h++;
        col++;
    }
    p = strchr(p, '\n') + 1;
    for (int r = 0; r < row; r++)
        p = strchr(p, '\n') + 1;
    for (int i = 0; i < col; i++)
        p = strchr(p, ',') + 1;
    size_t n = strcspn(p, ",\n");
    snprintf(value, sizeof value, "%.*s", (int)n, p);
    return value;
}

static double number(const char *csv, int row, const char *name) { return strtod(field(csv, row, name), NULL); }

Test(filter_plugin, example_lands_on_the_classic_formula, .timeout = 60)
{
    cr_assert(file_exists("build/plugin_filter.so"), "make build/plugin_filter.so first");
    cli_result r = run_cli("sweep --filter " EXAMPLE " " GRID);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(field(r.out, 0, "filter"), EXAMPLE);
    cr_assert_str_eq(field(r.out, 0, "hash"), "own");
    cr_assert_str_eq(field(r.out, 0, "scheme"), "own");
    double fpr = number(r.out, 0, "fpr"), se = number(r.out, 0, "fpr_se"), classic = number(r.out, 0, "fpr_classic");
    cr_assert(fpr > 0 && se > 0, "%s", r.out);
    cr_assert(fabs(fpr - classic) <= 5 * se, "fpr %g vs classic %g: %.2f se", fpr, classic, (fpr - classic) / se);
    /* its own formula is the classic one: fpr_exact holds it */
    cr_assert_float_eq(number(r.out, 0, "fpr_exact"), classic, 1e-9 * classic, "%s", r.out);
    cr_assert_eq(number(r.out, 0, "false_negatives"), 0, "%s", r.out);
    cr_assert_eq(number(r.out, 0, "present_queries"), 100000, "%s", r.out);
    double fill = number(r.out, 0, "fill"), expected = number(r.out, 0, "fill_expected");
    cr_assert(fill > 0 && fabs(fill - expected) < 0.01, "fill %g vs %g", fill, expected);
    cr_assert_eq(number(r.out, 0, "memory_bytes"), 25032, "%s", r.out); /* 200000 bits and its header */
    cli_free(&r);
}

/* An experiment file takes it too, beside a built-in layout; the plugin's
 * bytes are part of the inputs fingerprint. */
Test(filter_plugin, run_takes_a_plugin_and_fingerprints_its_bytes, .timeout = 60)
{
    char *dir = temp_dir();
    char ini[600], csv[600], so[600], cmd[2400], text[1400];
    snprintf(ini, sizeof ini, "%s/p.ini", dir);
    snprintf(csv, sizeof csv, "%s/p.csv", dir);
    snprintf(so, sizeof so, "%s/f.so", dir);
    snprintf(cmd, sizeof cmd, "cp build/plugin_filter.so %s", so);
    cr_assert_eq(system(cmd), 0);
    snprintf(text, sizeof text, "[experiment]\nname = p\nfilter = plugin:%s, standard\nhash = xxh3_64, fnv1a64\n"
                                "bits_per_item = 8\nn = 5000\nk = 5\ntrials = 4\nqueries = 20000\n", so);
    write_text(ini, text);
    snprintf(cmd, sizeof cmd, "run %s -o %s --threads 2 --quiet", ini, csv);
    cli_result r = run_cli(cmd);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *out = slurp(csv);
    cr_assert_not_null(out);
    /* one plugin cell (the hashes do not apply), then the standard layout's two */
    cr_assert_eq(count_lines(strstr(out, "experiment,")), 4, "%s", out);
    cr_assert(strstr(out, ",own,own,random64,40000,5000,5,") != NULL, "%s", out);
    cr_assert(strstr(out, "p,standard,xxh3_64,double,random64,40000,5000,5,") != NULL, "%s", out);
    cr_assert(strstr(out, "p,standard,fnv1a64,double,random64,40000,5000,5,") != NULL, "%s", out);
    free(out);
    cli_free(&r);
    snprintf(cmd, sizeof cmd, "run %s --inputs", ini);
    cli_result before = run_cli(cmd);
    snprintf(cmd, sizeof cmd, "printf x >> %s", so);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "run %s --inputs", ini);
    cli_result after = run_cli(cmd);
    cr_assert(before.status == 0 && after.status == 0, "%s %s", before.err, after.err);
    cr_assert(strncmp(before.out, "# inputs: ", 10) == 0 && strcmp(before.out, after.out) != 0,
              "the plugin's bytes changed, the fingerprint did not: %s", before.out);
    cli_free(&before);
    cli_free(&after);
    remove_tree(dir);
}

/* A filter plugin in one source, each fault chosen by a -D flag. */
static const char BROKEN[] =
    "#include <bloomlab/filter.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "typedef struct { uint64_t m; unsigned char *bits; unsigned long adds; } f_t;\n"
    "static uint64_t h(const void *k, size_t n, uint64_t i) { const unsigned char *p = k; uint64_t x = 1469598103934665603ULL + i;\n"
    "  for (size_t j = 0; j < n; j++) x = (x ^ p[j]) * 1099511628211ULL; x ^= x >> 31; x *= 0x94d049bb133111ebULL; return x ^ (x >> 29); }\n"
    "static void *create(uint64_t m, unsigned k, uint64_t n, uint64_t s) { (void)k; (void)n; (void)s;\n"
    "#ifdef CREATE_NULL\n  return NULL;\n#endif\n"
    "  f_t *f = calloc(1, sizeof *f); f->m = m; f->bits = calloc(m, 1); return f; }\n"
    "static void destroy(void *p) { f_t *f = p; free(f->bits); free(f); }\n"
    "static void add(void *p, const void *k, size_t n) { f_t *f = p;\n"
    "#ifdef SEGV_ADD\n  if (++f->adds > 100) *(volatile int *)(uintptr_t)8 = 1;\n#endif\n"
    "#ifdef DROP\n  if (++f->adds % 1000 == 0) return;\n#endif\n"
    "  for (uint64_t i = 0; i < 3; i++) f->bits[h(k, n, i) % f->m] = 1; }\n"
    "static int contains(const void *p, const void *k, size_t n) { const f_t *f = p;\n"
    "#ifdef SEGV_CONTAINS\n  if (n > 0) return *(volatile int *)(uintptr_t)8;\n#endif\n"
    "  for (uint64_t i = 0; i < 3; i++) if (!f->bits[h(k, n, i) % f->m]) return 0; return 1; }\n"
    "static uint64_t size(const void *p) { return ((const f_t *)p)->m; }\n"
    "#ifndef ABI\n#define ABI BLOOMLAB_FILTER_ABI\n#endif\n"
    "#ifdef NO_CONTAINS\n#define CONTAINS NULL\n#else\n#define CONTAINS contains\n#endif\n"
    "#ifdef FUNCTION_SYMBOL\nint bloomlab_filter_plugin(void) { return 0; }\n"
    "#elif !defined(NO_SYMBOL)\n"
    "const bloomlab_filter_api bloomlab_filter_plugin = {ABI, \"broken\", create, destroy, add, CONTAINS, size,\n"
    "  NULL, NULL, NULL, NULL, NULL, NULL};\n#endif\n"
    "const bloomlab_filter_api other = {ABI, \"other\", create, destroy, add, contains, size, NULL, NULL, NULL, NULL, NULL, NULL};\n";

/* DIR/NAME.so built from BROKEN with `defines`. */
static void build_broken(const char *dir, const char *name, const char *defines, char *so, size_t so_size)
{
    char c_path[700], cmd[2400];
    snprintf(c_path, sizeof c_path, "%s/broken.c", dir);
    write_text(c_path, BROKEN);
    snprintf(so, so_size, "%s/%s.so", dir, name);
    snprintf(cmd, sizeof cmd, "cc -std=c11 -shared -fPIC -O1 -Iinclude %s -o '%s' '%s'", defines, so, c_path);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The lines of stderr bloomlab wrote (a shell may add its own). */
static int bloomlab_lines(const char *err)
{
    int n = 0;
    for (const char *line = err; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line))
        n += strncmp(line, "bloomlab", 8) == 0;
    return n;
}

/* sweep and run with filter `spec`: exit 2, one line naming the plugin
 * and `what`, no output file. */
static void expect_refused(const char *dir, const char *spec, const char *what)
{
    char out[700], ini[700], cmd[3000], text[1400];
    snprintf(out, sizeof out, "%s/x.csv", dir);
    snprintf(ini, sizeof ini, "%s/x.ini", dir);
    snprintf(text, sizeof text, "[experiment]\nfilter = %s\nm = 1000\nn = 200\nk = 3\ntrials = 2\nqueries = 1000\n", spec);
    write_text(ini, text);
    const char *forms[] = {"sweep --filter %s --n 200 --m 1000 --k 3 --trials 2 --queries 1000 --threads 1 -o %s",
                           "run %s -o %s --threads 2"};
    for (size_t i = 0; i < 2; i++) {
        if (i == 0)
            snprintf(cmd, sizeof cmd, forms[0], spec, out);
        else
            snprintf(cmd, sizeof cmd, forms[1], ini, out);
        cli_result r = run_cli(cmd);
        cr_assert_eq(r.status, 2, "%s: exit %d: %s", cmd, r.status, r.err);
        cr_assert_eq(bloomlab_lines(r.err), 1, "%s: stderr '%s'", cmd, r.err);
        cr_assert_eq(count_lines(r.err), 1, "%s: stderr '%s'", cmd, r.err);
        cr_assert(strstr(r.err, spec) != NULL || strstr(r.err, spec + 7) != NULL, "%s: '%s' does not name the plugin", cmd, r.err);
        cr_assert(strstr(r.err, what) != NULL, "%s: stderr '%s' lacks '%s'", cmd, r.err, what);
        cr_assert(!file_exists(out), "%s wrote its output", cmd);
        cli_free(&r);
        /* a failure in a cell keeps the journal of the cells before it (none here) */
        char journal[800];
        snprintf(journal, sizeof journal, "%s/.x.csv.partial", dir);
        unlink(journal);
    }
    unlink(ini);
}

Test(filter_plugin, a_plugin_that_cannot_be_loaded_is_one_line, .timeout = 60)
{
    char *dir = temp_dir(), so[700], spec[800];
    expect_refused(dir, "plugin:build/no_such_filter.so", "no_such_filter.so");
    expect_refused(dir, "plugin:Makefile", "cannot load Makefile");
    expect_refused(dir, "plugin:", "plugin:PATH.so");
    build_broken(dir, "version", "-DABI=99", so, sizeof so);
    snprintf(spec, sizeof spec, "plugin:%s", so);
    expect_refused(dir, spec, "filter ABI version 99");
    build_broken(dir, "nosym", "-DNO_SYMBOL", so, sizeof so);
    snprintf(spec, sizeof spec, "plugin:%s", so);
    expect_refused(dir, spec, "has no symbol 'bloomlab_filter_plugin'");
    build_broken(dir, "function", "-DFUNCTION_SYMBOL", so, sizeof so);
    snprintf(spec, sizeof spec, "plugin:%s", so);
    expect_refused(dir, spec, "is a function");
    build_broken(dir, "nocontains", "-DNO_CONTAINS", so, sizeof so);
    snprintf(spec, sizeof spec, "plugin:%s", so);
    expect_refused(dir, spec, "required function 'contains' NULL");
    remove_tree(dir);
}

Test(filter_plugin, a_plugin_that_fails_while_running_is_one_line, .timeout = 60)
{
    char *dir = temp_dir(), so[700], spec[800];
    build_broken(dir, "null", "-DCREATE_NULL", so, sizeof so);
    snprintf(spec, sizeof spec, "plugin:%s", so);
    expect_refused(dir, spec, "create(m = 1000, k = 3, n = 200) returned NULL");
    build_broken(dir, "segv_add", "-DSEGV_ADD", so, sizeof so);
    snprintf(spec, sizeof spec, "plugin:%s", so);
    expect_refused(dir, spec, "crashed (SIG"); /* SIGSEGV; with two threads faulting at once the first wins */
    build_broken(dir, "segv_contains", "-DSEGV_CONTAINS", so, sizeof so);
    snprintf(spec, sizeof spec, "plugin:%s", so);
    expect_refused(dir, spec, "crashed (SIG"); /* SIGSEGV; with two threads faulting at once the first wins */
    remove_tree(dir);
}

/* A plugin that drops every 1000th key: its false negatives are counted in
 * the row, warned of on stderr and recorded in the metadata. */
Test(filter_plugin, false_negatives_are_counted_and_flagged, .timeout = 60)
{
    char *dir = temp_dir(), so[700], out[700], cmd[2400];
    build_broken(dir, "drop", "-DDROP", so, sizeof so);
    snprintf(out, sizeof out, "%s/out.csv", dir);
    snprintf(cmd, sizeof cmd, "sweep --filter plugin:%s --n 20000 --m 200000 --k 3 --trials 2 --queries 1000 --threads 1 -o %s",
             so, out);
    cli_result r = run_cli(cmd);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.err, "warning: cell 0 (plugin:") != NULL && strstr(r.err, "present keys answered \"absent\"") != NULL,
              "%s", r.err);
    char *csv = slurp(out);
    cr_assert_not_null(csv);
    double fn = number(csv, 0, "false_negatives");
    /* 10000 present keys asked per trial; one in 1000 of them was dropped */
    cr_assert(fn >= 10 && fn <= 30, "false_negatives = %g: %s", fn, csv);
    cr_assert(strstr(csv, "\n# false_negatives: cell 0 (plugin:") != NULL, "%s", csv);
    free(csv);
    cli_free(&r);
    remove_tree(dir);
}

/* LevelDB's adapter through bench: bloomlab's k = 7 at 10 bits per key is
 * refused, so it runs at its own choice at that size (k = 6) and the
 * standard layout beside it at the same m (as built: LevelDB rounds up to
 * whole bytes) and k; the table says so. */
Test(filter_plugin, leveldb_through_bench_at_its_own_k, .timeout = 120)
{
    if (!file_exists("build/adapters/leveldb.so")) {
        cr_log_info("build/adapters/leveldb.so not built (libleveldb-dev absent): skipped");
        return;
    }
    char *dir = temp_dir(), out[700], args[1200];
    snprintf(out, sizeof out, "%s/b.csv", dir);
    snprintf(args, sizeof args, "bench --filter standard --filter plugin:build/adapters/leveldb.so --min-bytes 16K "
                                "--max-bytes 16K --keys random64 --ops 1e4 -o %s", out);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *said = "k = 6, its own choice at this size: it refused bloomlab's k = 7";
    cr_assert(strstr(r.out, said) != NULL || strstr(r.err, said) != NULL, "%s%s", r.out, r.err);
    cli_free(&r);
    char *csv = slurp(out);
    cr_assert_not_null(csv);
    const char *level = strstr(csv, "\nplugin,plugin:build/adapters/leveldb.so,own,own,random64,");
    cr_assert(level != NULL, "%s", csv);
    /* the bloomlab row of the pair is the one before it: the same m, n, k */
    const char *before = level;
    do
        before--;
    while (before[-1] != '\n');
    cr_assert(strncmp(before, "plugin,standard,", 16) == 0, "%.200s", before);
    const char *h = csv;
    while (*h == '#')
        h = strchr(h, '\n') + 1;
    static const char *const SAME[] = {"m", "n", "k"};
    for (size_t i = 0; i < 3; i++) {
        char want[8];
        snprintf(want, sizeof want, "%s", SAME[i]);
        int col = 0;
        for (const char *c = h; !(strncmp(c, want, strlen(want)) == 0 && (c[strlen(want)] == ',' || c[strlen(want)] == '\n'));
             col++)
            c = strchr(c, ',') + 1;
        const char *a = level + 1, *b = before;
        for (int j = 0; j < col; j++) {
            a = strchr(a, ',') + 1;
            b = strchr(b, ',') + 1;
        }
        /* m as built: LevelDB rounds its bits up to whole bytes */
        const double da = strtod(a, NULL), db = strtod(b, NULL);
        cr_expect(fabs(da - db) < (i == 0 ? 64 : 0.5), "column %s: %g and %g", want, da, db);
        if (i == 2)
            cr_expect_eq(strtoull(a, NULL, 10), 6, "LevelDB's k");
    }
    free(csv);
    remove_tree(dir);
}
