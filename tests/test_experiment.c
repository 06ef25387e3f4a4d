/* test_experiment.c -- experiment files into cells (experiment.h): the grid,
 * the scale values, and one exact FILE:LINE error for each kind of mistake. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "harness/experiment.h"
#include "helpers.h"

typedef struct {
    char *dir;
    char path[512];
} ini_file;

/* Write text to DIR/NAME.ini; the caller removes it with ini_remove. */
static ini_file ini_write(const char *name, const char *text)
{
    ini_file f;
    f.dir = temp_dir();
    snprintf(f.path, sizeof f.path, "%s/%s.ini", f.dir, name);
    write_text(f.path, text);
    return f;
}

static void ini_remove(ini_file *f) { remove_tree(f->dir); }

static experiment load_ok(const char *text, const char *scale)
{
    ini_file f = ini_write("ok", text);
    experiment e;
    char err[1024] = "";
    int rc = experiment_load(f.path, scale, &e, err, sizeof err);
    ini_remove(&f);
    cr_assert_eq(rc, 0, "refused: %s", err);
    return e;
}

/* The load fails with "PATH:LINE: ..." that also contains `value`. */
static void expect_error(const char *text, int line, const char *value)
{
    ini_file f = ini_write("bad", text);
    experiment e;
    char err[1024] = "";
    int rc = experiment_load(f.path, "quick", &e, err, sizeof err);
    char where[600];
    snprintf(where, sizeof where, "%s:%d: ", f.path, line);
    ini_remove(&f);
    cr_assert_eq(rc, -1, "accepted:\n%s", text);
    cr_assert_eq(e.count, 0);
    cr_assert(strncmp(err, where, strlen(where)) == 0, "error does not start with %s: %s", where, err);
    cr_assert(strstr(err, value) != NULL, "error does not name '%s': %s", value, err);
    cr_assert(strchr(err, '\n') == NULL, "error of more than one line: %s", err);
}

/* ---- grids ----------------------------------------------------------- */

Test(experiment, product_of_lists)
{
    experiment e = load_ok("[experiment]\nname = grid\nseed = 42\n"
                           "[a]\nfilter = standard, blocked512\nhash = xxh3_64, fnv1a32\n"
                           "m = 1024, 4096\nn = 100\nk = 1..3\ntrials = 2\nqueries = 50\n",
                           "quick");
    cr_assert_str_eq(e.name, "grid");
    cr_assert_eq(e.seed, 42);
    cr_assert_eq(e.count, 2 * 2 * 2 * 3);
    cr_assert_eq(e.hash_count, 2);
    for (size_t i = 0; i < e.count; i++) {
        cr_assert_eq(e.cells[i].n, 100);
        cr_assert_eq(e.cells[i].trials, 2);
        cr_assert_eq(e.cells[i].queries, 50);
        cr_assert(e.cells[i].k >= 1 && e.cells[i].k <= 3);
    }
    experiment_free(&e);
}

Test(experiment, defaults_and_name_from_file)
{
    experiment e = load_ok("[experiment]\nm = 1000\nn = 100\n", "quick");
    cr_assert_str_eq(e.name, "ok");
    cr_assert_eq(e.seed, 1);
    cr_assert_eq(e.count, 1);
    const cell *c = &e.cells[0];
    cr_assert_eq(c->layout, LAYOUT_STANDARD);
    cr_assert_eq(c->scheme, SCHEME_DOUBLE);
    cr_assert_str_eq(cell_hash_name(&e, c), "xxh3_64");
    cr_assert_str_eq(cell_keys_name(&e, c), "random64");
    cr_assert_eq(c->trials, 10);
    cr_assert_eq(c->queries, 100000);
    cr_assert_eq(c->k, 7, "k = opt at 10 bits per item is 7, got %u", c->k);
    experiment_free(&e);
}

Test(experiment, bits_per_item_gives_m)
{
    experiment e = load_ok("[experiment]\nbits_per_item = 8, 9.5\nn = 1000\nk = 3\n", "quick");
    cr_assert_eq(e.count, 2);
    cr_assert_eq(e.cells[0].m, 8000);
    cr_assert_eq(e.cells[1].m, 9500);
    experiment_free(&e);
}

Test(experiment, ideal_scheme_once_not_per_hash)
{
    experiment e = load_ok("[g]\nscheme = double, ideal\nhash = xxh3_64, fnv1a32, murmur3_32\nm = 64\nn = 4\nk = 2\n",
                           "quick");
    cr_assert_eq(e.count, 3 + 1);
    experiment_free(&e);
}

Test(experiment, defaults_section_feeds_every_grid)
{
    experiment e = load_ok("[experiment]\nn = 100\nk = 2\n[one]\nm = 1000\n[two]\nm = 2000\nk = 3\n", "quick");
    cr_assert_eq(e.count, 2);
    cr_assert_eq(e.cells[0].m, 1000);
    cr_assert_eq(e.cells[0].k, 2);
    cr_assert_eq(e.cells[1].m, 2000);
    cr_assert_eq(e.cells[1].k, 3, "a grid's own key wins over [experiment]");
    experiment_free(&e);
}

Test(experiment, scale_values)
{
    const char *text = "[experiment]\nm = 1000\nn = 10\nn.quick = 20\nn.full = 30\ntrials.full = 99\n";
    experiment quick = load_ok(text, "quick"), full = load_ok(text, "full");
    cr_assert_eq(quick.cells[0].n, 20);
    cr_assert_eq(quick.cells[0].trials, 10, "trials.full is ignored at quick");
    cr_assert_eq(full.cells[0].n, 30);
    cr_assert_eq(full.cells[0].trials, 99);
    cr_assert_str_eq(full.scale, "full");
    experiment_free(&quick);
    experiment_free(&full);
    /* KEY.SCALE wins wherever it stands */
    experiment e = load_ok("[experiment]\nm = 1000\nn.quick = 20\nn = 10\n", "quick");
    cr_assert_eq(e.cells[0].n, 20);
    experiment_free(&e);
}

Test(experiment, blocked_m_rounds_up_and_splitblock_k_is_8)
{
    experiment e = load_ok("[a]\nfilter = blocked512\nm = 1000\nn = 10\nk = 3\n[b]\nfilter = splitblock\nm = 1000\nn = 10\n",
                           "quick");
    cr_assert_eq(e.cells[0].m, 1024);
    cr_assert_eq(e.cells[1].m, 1024);
    cr_assert_eq(e.cells[1].k, 8);
    experiment_free(&e);
}

Test(experiment, settings_from_flags)
{
    setting s[] = {{"n", "100", "--n"}, {"m", "1e3..1e4*10", "--m"}, {"k", "opt, 4", "--k"}, {"seed", "9", "--seed"}};
    experiment e;
    char err[1024];
    cr_assert_eq(experiment_from_settings(s, 4, "sweep", &e, err, sizeof err), 0, "%s", err);
    cr_assert_eq(e.count, 4);
    cr_assert_eq(e.seed, 9);
    cr_assert_str_eq(e.source, "flags");
    experiment_free(&e);
    setting bad[] = {{"n", "100", "--n"}, {"m", "1000", "--m"}, {"k", "0", "--k"}};
    cr_assert_eq(experiment_from_settings(bad, 3, "sweep", &e, err, sizeof err), -1);
    cr_assert(strncmp(err, "--k: ", 5) == 0 && strstr(err, "k = 0") != NULL, "%s", err);
}

/* ---- errors: FILE:LINE and the value ----------------------------------- */

Test(experiment, unknown_key) { expect_error("[experiment]\nm = 10\nbogus = 1\nn = 1\n", 3, "bogus"); }

Test(experiment, unknown_key_in_a_grid_section)
{
    expect_error("[experiment]\nn = 1\n[grid]\nm = 100\ncolour = red\n", 5, "colour");
    expect_error("[grid]\nm = 100\nn = 1\nseed = 3\n", 4, "seed"); /* seed belongs to [experiment] */
}

Test(experiment, unknown_scale) { expect_error("[experiment]\nm = 10\nn.huge = 1\n", 3, "n.huge"); }

Test(experiment, twice_in_a_section) { expect_error("[experiment]\nm = 10\nn = 1\nm = 20\n", 4, "'m'"); }

Test(experiment, bad_number)
{
    expect_error("[experiment]\nm = 10\nn = 1e3x\n", 3, "1e3x");
    expect_error("[experiment]\nm = 10\nn = 1\ntrials = 2.5\n", 4, "2.5");
    expect_error("[experiment]\nm = 10\nn = 1\nqueries = 1..\n", 4, "1..");
}

Test(experiment, m_below_one)
{
    expect_error("[experiment]\nm = 0\nn = 1\n", 2, "m = 0");
    expect_error("[experiment]\nn = 1\nm = 10, -5\n", 3, "m = -5");
}

Test(experiment, k_outside_1_to_64)
{
    expect_error("[experiment]\nm = 100\nn = 1\nk = 65\n", 4, "k = 65");
    expect_error("[experiment]\nm = 100\nn = 1\nk = 0\n", 4, "k = 0");
    expect_error("[experiment]\nm = 100\nn = 1\nk = 1..70\n", 4, "k = 65");
    expect_error("[experiment]\nm = 100\nn = 1\nk = best\n", 4, "best");
}

Test(experiment, n_negative) { expect_error("[experiment]\nm = 100\nn = -5\n", 3, "n = -5"); }

Test(experiment, queries_and_trials_below_one)
{
    expect_error("[experiment]\nm = 100\nn = 1\nqueries = 0\n", 4, "queries = 0");
    expect_error("[experiment]\nm = 100\nn = 1\ntrials = 0\n", 4, "trials = 0");
}

Test(experiment, both_m_and_bits_per_item)
{
    expect_error("[experiment]\nn = 1\nm = 100\nbits_per_item = 8\n", 3, "bits_per_item");
}

/* A section's problem points at its first key (inih reports no line for a section header). */
Test(experiment, neither_m_nor_bits_per_item) { expect_error("[g]\nn = 10\n", 2, "neither m nor bits_per_item"); }

Test(experiment, bits_per_item_needs_n) { expect_error("[experiment]\nn = 0\nbits_per_item = 8\n", 3, "n >= 1"); }

Test(experiment, unknown_names)
{
    expect_error("[experiment]\nm = 100\nn = 1\nfilter = standard, cuckoo\n", 4, "'cuckoo'");
    expect_error("[experiment]\nm = 100\nn = 1\nhash = sha999\n", 4, "'sha999'");
    expect_error("[experiment]\nm = 100\nn = 1\nscheme = triple\n", 4, "'triple'");
    expect_error("[experiment]\nm = 100\nn = 1\nkeys = emails\n", 4, "'emails'");
    expect_error("[experiment]\nm = 100\nn = 1\nmeasure = speed\n", 4, "'speed'");
}

Test(experiment, words_file_too_small)
{
    char *dir = temp_dir();
    char words[600], text[1400];
    snprintf(words, sizeof words, "%s/five.txt", dir);
    FILE *f = fopen(words, "w");
    fputs("alpha\nbeta\ngamma\ndelta\nalpha\nepsilon\n", f); /* 5 distinct */
    fclose(f);
    snprintf(text, sizeof text, "[experiment]\nm = 100\nn = 3\nqueries = 3\nkeys = words:%s\n", words);
    expect_error(text, 5, "has 5 words");
    snprintf(text, sizeof text, "[experiment]\nm = 100\nn = 3\nqueries = 2\nkeys = words:%s\n", words);
    experiment e = load_ok(text, "quick");
    cr_assert_eq(e.count, 1);
    experiment_free(&e);
    snprintf(text, sizeof text, "[experiment]\nm = 100\nn = 3\nkeys = words:%s/none.txt\n", dir);
    expect_error(text, 4, "none.txt");
    remove_tree(dir);
}

Test(experiment, course_keys_hold_twenty)
{
    expect_error("[experiment]\nm = 64\nn = 21\nqueries = 20\nkeys = course\n", 5, "n = 21");
}

Test(experiment, splitblock_needs_k_8)
{
    expect_error("[experiment]\nm = 1024\nn = 10\nk = 7\nfilter = splitblock\n", 5, "k must be 8, not 7");
}

Test(experiment, course_scheme_needs_a_power_of_two)
{
    expect_error("[experiment]\nm = 1000\nn = 10\nscheme = course\nk = 3\n", 2, "not 1000");
    experiment e = load_ok("[experiment]\nm = 1024\nn = 10\nscheme = course\nk = 3\n", "quick");
    experiment_free(&e);
}

Test(experiment, deletes)
{
    expect_error("[experiment]\nm = 1000\nn = 10\nfilter = counting\nmeasure = delete\ndeletes = 11\n", 6,
                 "deletes = 11");
    expect_error("[experiment]\nm = 1000\nn = 10\nfilter = counting\nmeasure = delete\n", 5, "deletes >= 1");
}

Test(experiment, seed_bad) { expect_error("[experiment]\nseed = -1\nm = 10\nn = 1\n", 2, "seed = -1"); }

Test(experiment, not_an_ini_line) { expect_error("[experiment]\nm = 10\nthis is not ini\n", 3, "INI"); }

Test(experiment, missing_file)
{
    experiment e;
    char err[1024];
    cr_assert_eq(experiment_load("/nonexistent/x.ini", "quick", &e, err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent/x.ini") != NULL, "%s", err);
}

Test(experiment, seeds_paired_by_default_or_independent)
{
    ini_file f = ini_write("seeds", "[experiment]\nseeds = independent\nm = 100\nn = 10\n");
    experiment e;
    char err[1024] = "";
    cr_assert_eq(experiment_load(f.path, "quick", &e, err, sizeof err), 0, "%s", err);
    cr_expect_eq(e.seeds, SEEDS_INDEPENDENT);
    experiment_free(&e);
    ini_remove(&f);
    f = ini_write("seeds", "[experiment]\nm = 100\nn = 10\n");
    cr_assert_eq(experiment_load(f.path, "quick", &e, err, sizeof err), 0, "%s", err);
    cr_expect_eq(e.seeds, SEEDS_PAIRED);
    experiment_free(&e);
    ini_remove(&f);
}

Test(experiment, seeds_bad) { expect_error("[experiment]\nm = 10\nseeds = both\nn = 1\n", 3, "seeds = both"); }

Test(experiment, seeds_only_in_experiment)
{
    expect_error("[experiment]\nm = 10\n[g]\nn = 1\nseeds = paired\n", 5, "'seeds' belongs in [experiment]");
}
