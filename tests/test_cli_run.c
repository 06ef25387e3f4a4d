/* test_cli_run.c -- `bloomlab run`, `sweep` and `merge` through the binary:
 * the CSV's shape, determinism across threads and shards, the refusal of
 * every bad input (exit 2, one line, no file touched), and the ideal scheme
 * against the exact formula. */
#include <criterion/criterion.h>
#include <math.h>

#include "csv.h"
#include "helpers.h"
#include "harness/sweep.h"


/* An experiment with every kind of cell: layouts, hashes, the ideal scheme,
 * key sets, a counting delete cell and one-trial cells (whose queries run
 * in parallel inside the trial). */
static const char MIXED_INI[] = "[experiment]\nname = mixed\nseed = 99\ntrials = 3\nqueries = 3000\n"
                                "[layouts]\nfilter = standard, partitioned, blocked512, register64\n"
                                "hash = xxh3_64, fnv1a32\nscheme = double, ideal\nm = 4096\nn = 300\nk = 4\n"
                                "[split]\nfilter = splitblock\nm = 8192\nn = 500\nkeys = urls, seq64\n"
                                "[delete]\nfilter = counting\nmeasure = delete\nn = 200\ndeletes = 50\nm = 2048\n"
                                "k = 3\ntrials = 1\nqueries = 20000\n"
                                "[words]\nkeys = words\nscheme = enhanced, independent\nm = 1e4\nn = 1000\nk = 5\n"
                                "trials = 1\nqueries = 40000\n";
#define MIXED_CELLS (4 * 3 + 2 + 1 + 2)

static char *mixed_setup(char *ini, size_t size)
{
    char *dir = temp_dir();
    snprintf(ini, size, "%s/mixed.ini", dir);
    write_text(ini, MIXED_INI);
    return dir;
}

static void run_ok(const char *args)
{
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "bloomlab %s: status %d: %s", args, r.status, r.err);
    cli_free(&r);
}

Test(cli_run, writes_metadata_and_the_header)
{
    char ini[600], args[1400], out[600];
    char *dir = mixed_setup(ini, sizeof ini);
    snprintf(out, sizeof out, "%s/res/mixed.csv", dir);
    snprintf(args, sizeof args, "run %s -o %s/mixed.csv --quiet --threads 2", ini, dir);
    run_ok(args);
    snprintf(out, sizeof out, "%s/mixed.csv", dir);
    char *csv = slurp(out);
    cr_assert_not_null(csv);
    const char *keys[] = {"# experiment: mixed\n", "# source: ", "# command: bloomlab run ", "# version: bloomlab ",
                          "# seed: 99\n", "# scale: quick\n", "# threads: 2\n", "# shard: 1/1\n",
                          "# cells: 17\n", "# date: ", "# wall_time_s: "};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        cr_assert(strstr(csv, keys[i]) != NULL, "no '%s' line", keys[i]);
    /* the header follows the '#' lines exactly */
    const char *line = csv;
    while (*line == '#')
        line = strchr(line, '\n') + 1;
    cr_assert(strncmp(line, SWEEP_HEADER, strlen(SWEEP_HEADER)) == 0 && line[strlen(SWEEP_HEADER)] == '\n',
              "header: %.200s", line);
    cr_assert(strncmp(SWEEP_HEADER,
                      "experiment,filter,hash,scheme,keys,m,n,k,bits_per_item,trials,queries,false_positives,fpr,"
                      "fpr_lo,fpr_hi,fpr_se,fpr_classic,fpr_exact,fill,fill_sd,fill_expected,z,ns_insert,ns_query",
                      strlen("experiment,filter,hash,scheme,keys,m,n,k,bits_per_item,trials,queries,false_positives,"
                             "fpr,fpr_lo,fpr_hi,fpr_se,fpr_classic,fpr_exact,fill,fill_sd,fill_expected,z,ns_insert,"
                             "ns_query")) == 0,
              "DESIGN.md's columns come first, in order");
    cr_assert_eq(count_lines(line), 1 + MIXED_CELLS);
    char *rows = data_rows(csv);
    cr_assert_eq(count_lines(rows), MIXED_CELLS);
    cr_assert(strstr(rows, "mixed,splitblock,xxh3_64,double,urls,8192,500,8,") != NULL, "%s", rows);
    cr_assert(strstr(rows, ",ideal,ideal,random64,4096,300,4,") != NULL);
    free(rows);
    free(csv);
    /* nothing else beside it: no journal, lock or temporary file */
    snprintf(args, sizeof args, "ls -A '%s' | grep -v -e '^mixed.ini$' -e '^mixed.csv$' | wc -l | grep -qx 0", dir);
    cr_assert_eq(system(args), 0, "leftover files in %s", dir);
    remove_tree(dir);
}

Test(cli_run, default_output_is_results_name)
{
    cli_result r = run_cli("run --help");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "results/NAME.csv") != NULL);
    cli_free(&r);
}

/* The mixed experiment run twice, with flags_a and with flags_b (and, when
 * isa is given, BLOOMLAB_ISA=isa for the second run): the same data rows,
 * ns_* aside. */
static void expect_same_rows(const char *flags_a, const char *flags_b, const char *isa, const char *why)
{
    char ini[600], args[1400], path_a[700], path_b[700];
    char *dir = mixed_setup(ini, sizeof ini);
    snprintf(path_a, sizeof path_a, "%s/a.csv", dir);
    snprintf(path_b, sizeof path_b, "%s/b.csv", dir);
    snprintf(args, sizeof args, "run %s -o %s %s --quiet", ini, path_a, flags_a);
    run_ok(args);
    char *saved_isa = isa != NULL ? isa_env_set(isa) : NULL;
    snprintf(args, sizeof args, "run %s -o %s %s --quiet", ini, path_b, flags_b);
    run_ok(args);
    if (isa != NULL)
        isa_env_restore(saved_isa);
    char *a = file_rows(path_a), *b = file_rows(path_b);
    cr_assert_eq(count_lines(a), MIXED_CELLS);
    cr_assert_str_eq(a, b, "%s", why);
    free(a);
    free(b);
    remove_tree(dir);
}

Test(cli_run, same_rows_at_any_thread_count)
{
    expect_same_rows("--threads 1", "--threads 2", NULL, "threads 1 and 2 differ");
}

/* The vector loops this CPU runs (cpu.h) and the portable loops write the
 * same rows (on a CPU with none, both runs take the portable loops). */
Test(cli_run, same_rows_with_either_loops)
{
    expect_same_rows("", "", "portable", "the vector and the portable loops differ");
}

Test(cli_run, shards_merge_to_the_whole)
{
    char ini[600], args[3000], whole[700];
    char *dir = mixed_setup(ini, sizeof ini);
    snprintf(whole, sizeof whole, "%s/whole.csv", dir);
    snprintf(args, sizeof args, "run %s -o %s --threads 2 --quiet", ini, whole);
    run_ok(args);
    for (int s = 1; s <= 3; s++) {
        snprintf(args, sizeof args, "run %s -o %s/s%d.csv --shard %d/3 --threads %d --quiet", ini, dir, s, s, s % 2 + 1);
        run_ok(args);
    }
    snprintf(args, sizeof args, "merge -o %s/merged.csv %s/s3.csv %s/s1.csv %s/s2.csv", dir, dir, dir, dir);
    run_ok(args);
    char merged[700], shard1[700];
    snprintf(merged, sizeof merged, "%s/merged.csv", dir);
    snprintf(shard1, sizeof shard1, "%s/s1.csv", dir);
    char *a = file_rows(whole), *b = file_rows(merged), *c = file_rows(shard1);
    cr_assert_str_eq(a, b, "merged shards differ from the unsharded run");
    cr_assert_eq(count_lines(c), (MIXED_CELLS + 2) / 3, "shard 1/3 holds cells 0, 3, 6, ...");
    free(a);
    free(b);
    free(c);
    char *text = slurp(merged);
    cr_assert(strstr(text, "# shard: merged\n") != NULL);
    free(text);
    /* a missing shard and a doubled one are refused */
    snprintf(args, sizeof args, "merge -o %s/bad.csv %s/s1.csv %s/s2.csv", dir, dir, dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "missing") != NULL && count_lines(r.err) == 1, "%s", r.err);
    cli_free(&r);
    snprintf(args, sizeof args, "merge -o %s/bad.csv %s/s1.csv %s/s1.csv %s/s2.csv %s/s3.csv", dir, dir, dir, dir, dir);
    r = run_cli(args);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "twice") != NULL && count_lines(r.err) == 1, "%s", r.err);
    cli_free(&r);
    snprintf(args, sizeof args, "%s/bad.csv", dir);
    cr_assert(!file_exists(args));
    remove_tree(dir);
}

Test(cli_run, same_seed_same_rows_other_seed_other_rows)
{
    char *a = NULL, *b = NULL, *c = NULL;
    const char *grid = "--n 200 --m 2048 --k 3 --trials 4 --queries 5000 --quiet";
    char args[400];
    snprintf(args, sizeof args, "sweep %s --seed 5", grid);
    cli_result r1 = run_cli(args), r2 = run_cli(args);
    snprintf(args, sizeof args, "sweep %s --seed 6", grid);
    cli_result r3 = run_cli(args);
    a = data_rows(r1.out);
    b = data_rows(r2.out);
    c = data_rows(r3.out);
    cr_assert_str_eq(a, b);
    cr_assert_str_neq(a, c);
    free(a);
    free(b);
    free(c);
    cli_free(&r1);
    cli_free(&r2);
    cli_free(&r3);
}

/* seeds = independent: each cell draws its own keys, from the seed and its
 * parameters, so its rows are the same bytes at any thread count, and not
 * the paired design's. */
Test(cli_run, independent_seeds_are_deterministic_and_differ_from_paired)
{
    const char *grid = "--n 300 --m 4096 --k 3,3 --trials 3 --queries 4000 --scheme ideal --quiet";
    char args[400];
    snprintf(args, sizeof args, "sweep %s --seeds independent --threads 1", grid);
    cli_result one = run_cli(args);
    snprintf(args, sizeof args, "sweep %s --seeds independent --threads 2", grid);
    cli_result two = run_cli(args);
    snprintf(args, sizeof args, "sweep %s --seeds paired --threads 2", grid);
    cli_result paired = run_cli(args);
    cr_assert(one.status == 0 && two.status == 0 && paired.status == 0, "%s%s%s", one.err, two.err, paired.err);
    char *a = data_rows(one.out), *b = data_rows(two.out), *c = data_rows(paired.out);
    cr_assert_str_eq(a, b, "independent seeds differ between 1 and 2 threads");
    cr_assert_str_neq(a, c);
    cr_assert(strstr(a, ",independent,") != NULL && strstr(c, ",paired,") != NULL);
    free(a);
    free(b);
    free(c);
    cli_free(&one);
    cli_free(&two);
    cli_free(&paired);
}

/* ---- every bad input: exit 2, one line naming where and what, no file --- */

/* Run `bloomlab ARGS -o DIR/out.csv`: status 2, one stderr line holding
 * each needle, and DIR left as it was -- first without an output file,
 * then with a previous one, which must stay byte for byte. */
static void expect_refused_in(const char *dir, const char *args, const char *needle1, const char *needle2)
{
    char out[700], cmd[3000];
    snprintf(out, sizeof out, "%s/out.csv", dir);
    unlink(out);
    snprintf(cmd, sizeof cmd, "%s -o %s", args, out);
    for (int previous = 0; previous < 2; previous++) {
        const char old[] = "# an earlier complete result\nexperiment\nkeep me\n";
        if (previous)
            write_text(out, old);
        cli_result r = run_cli(cmd);
        cr_assert_eq(r.status, 2, "bloomlab %s: status %d (%s)", cmd, r.status, r.err);
        cr_assert_eq(count_lines(r.err), 1, "bloomlab %s: not one line:\n%s", cmd, r.err);
        cr_assert(strstr(r.err, needle1) != NULL, "bloomlab %s: '%s' not named: %s", cmd, needle1, r.err);
        cr_assert(needle2 == NULL || strstr(r.err, needle2) != NULL, "bloomlab %s: '%s' not named: %s", cmd, needle2,
                  r.err);
        cr_assert_str_eq(r.out, "", "bloomlab %s wrote to stdout", cmd);
        if (previous) {
            char *now = slurp(out);
            cr_assert_str_eq(now, old, "bloomlab %s changed the previous output", cmd);
            free(now);
        } else {
            cr_assert(!file_exists(out), "bloomlab %s created %s", cmd, out);
        }
        /* no journal, lock or temporary file either */
        char ls[800];
        snprintf(ls, sizeof ls, "ls -A '%s' | grep -v -e '^out.csv$' -e '\\.ini$' -e '\\.txt$' | wc -l | grep -qx 0", dir);
        cr_assert_eq(system(ls), 0, "bloomlab %s left files in %s", cmd, dir);
        cli_free(&r);
    }
    unlink(out);
}

static const char GOOD[] = "--n 10 --m 100 --trials 1 --queries 10 --quiet";

static void sweep_refused(const char *dir, const char *extra, const char *needle1, const char *needle2)
{
    char args[1200];
    snprintf(args, sizeof args, "sweep %s %s", GOOD, extra);
    expect_refused_in(dir, args, needle1, needle2);
}

Test(cli_run, bad_sweep_flags)
{
    char *dir = temp_dir();
    sweep_refused(dir, "--k 65", "--k", "65");
    sweep_refused(dir, "--k 0", "--k", "k = 0");
    sweep_refused(dir, "--k best", "--k", "best");
    sweep_refused(dir, "--m 0", "--m", "m = 0");
    sweep_refused(dir, "--n -1", "--n", "-1");
    sweep_refused(dir, "--n abc", "--n", "abc");
    sweep_refused(dir, "--n 1e3x", "--n", "1e3x");
    sweep_refused(dir, "--n 5..1", "--n", "5..1");
    sweep_refused(dir, "--queries 0", "--queries", "queries = 0");
    sweep_refused(dir, "--trials 0", "--trials", "trials = 0");
    sweep_refused(dir, "--trials 2.5", "--trials", "2.5");
    sweep_refused(dir, "--bits-per-item 8", "--m", "bits_per_item");
    sweep_refused(dir, "--filter cuckoo", "--filter", "cuckoo");
    sweep_refused(dir, "--hash sha999", "--hash", "sha999");
    sweep_refused(dir, "--scheme triple", "--scheme", "triple");
    sweep_refused(dir, "--keys emails", "--keys", "emails");
    sweep_refused(dir, "--keys words:/nonexistent/w.txt", "--keys", "/nonexistent/w.txt");
    sweep_refused(dir, "--measure speed", "--measure", "speed");
    sweep_refused(dir, "--filter counting --measure delete --deletes 11", "--deletes", "11");
    sweep_refused(dir, "--filter splitblock --k 4", "--filter", "k must be 8, not 4");
    sweep_refused(dir, "--scheme course --k 3", "--m", "not 100");
    sweep_refused(dir, "--keys course --n 21 --queries 20", "--keys", "n = 21");
    sweep_refused(dir, "--seed -1", "--seed", "-1");
    sweep_refused(dir, "--threads 0", "--threads", "'0'");
    sweep_refused(dir, "--threads many", "--threads", "many");
    sweep_refused(dir, "--shard 4/3", "--shard", "4/3");
    sweep_refused(dir, "--shard 0/3", "--shard", "0/3");
    sweep_refused(dir, "--shard x", "--shard", "'x'");
    sweep_refused(dir, "--bogus", "--bogus", NULL);
    sweep_refused(dir, "--hash plugin:/nonexistent.so:f", "--hash", "/nonexistent.so");
    sweep_refused(dir, "--queries 1e12 --trials 100", "--queries", "1e+14 queries in one cell");
    sweep_refused(dir, "--m 2^40", "--m", "GB");
    remove_tree(dir);
}

Test(cli_run, a_flag_without_its_value)
{
    char *dir = temp_dir();
    char args[200];
    /* the value-less flag last, so that -o is not taken for its value */
    snprintf(args, sizeof args, "sweep %s --k", GOOD);
    char out[700], cmd[1000];
    snprintf(out, sizeof out, "%s/out.csv", dir);
    snprintf(cmd, sizeof cmd, "%s -o %s", args, out);
    cli_result r = run_cli(cmd);
    cr_assert_eq(r.status, 2);
    cr_assert(count_lines(r.err) == 1, "%s", r.err);
    cli_free(&r);
    r = run_cli("sweep --n 10 --m 100 --k");
    cr_assert_eq(r.status, 2);
    cr_assert(count_lines(r.err) == 1 && strstr(r.err, "--k needs a value") != NULL, "%s", r.err);
    cli_free(&r);
    cr_assert(!file_exists(out));
    remove_tree(dir);
}

static void run_refused(const char *dir, const char *ini_text, int line, const char *value)
{
    char ini[700], args[2000], where[800];
    snprintf(ini, sizeof ini, "%s/exp.ini", dir);
    write_text(ini, ini_text);
    snprintf(args, sizeof args, "run %s --quiet", ini);
    if (line > 0)
        snprintf(where, sizeof where, "%s:%d: ", ini, line);
    else
        snprintf(where, sizeof where, "%s", ini);
    expect_refused_in(dir, args, where, value);
    unlink(ini);
}

Test(cli_run, bad_experiment_files)
{
    char *dir = temp_dir();
    run_refused(dir, "[experiment]\nm = 100\nn = 1\nbogus = 2\n", 4, "bogus");
    run_refused(dir, "[experiment]\nn = 1\n[g]\nm = 100\ncolour = red\n", 5, "colour");
    run_refused(dir, "[experiment]\nm = 100\nn = 1e3x\n", 3, "1e3x");
    run_refused(dir, "[experiment]\nm = 0\nn = 1\n", 2, "m = 0");
    run_refused(dir, "[experiment]\nm = 100\nn = 1\nk = 65\n", 4, "k = 65");
    run_refused(dir, "[experiment]\nm = 100\nn = -3\n", 3, "n = -3");
    run_refused(dir, "[experiment]\nm = 100\nn = 1\nqueries = 0\n", 4, "queries = 0");
    run_refused(dir, "[experiment]\nm = 100\nbits_per_item = 4\nn = 1\n", 2, "bits_per_item");
    run_refused(dir, "[experiment]\nm = 100\nn = 1\nfilter = cuckoo\n", 4, "cuckoo");
    run_refused(dir, "[experiment]\nm = 100\nn = 1\nhash = sha999\n", 4, "sha999");
    run_refused(dir, "[experiment]\nm = 100\nn = 1\nscheme = triple\n", 4, "triple");
    run_refused(dir, "[experiment]\nm = 100\nn = 1\nkeys = emails\n", 4, "emails");
    run_refused(dir, "[experiment]\nm = 1024\nn = 1\nk = 7\nfilter = splitblock\n", 5, "not 7");
    run_refused(dir, "[experiment]\nm = 1000\nn = 1\nk = 2\nscheme = course\n", 2, "not 1000");
    run_refused(dir, "[experiment]\nm = 100\nn.huge = 1\n", 3, "n.huge");
    run_refused(dir, "[experiment]\nm = 100\nn = 1\nqueries = 1e12\ntrials = 1000\n", 4, "1e+15 queries");
    run_refused(dir, "[experiment]\nm = 2^40\nn = 1\nk = 1\ntrials = 1\n", 2, "GB");
    run_refused(dir, "not an ini file\n", 1, "INI");
    /* a words file too small for n + queries */
    char words[700], text[1200];
    snprintf(words, sizeof words, "%s/five.txt", dir);
    write_text(words, "a\nb\nc\nd\ne\n");
    snprintf(text, sizeof text, "[experiment]\nm = 100\nn = 3\nqueries = 3\nkeys = words:%s\n", words);
    run_refused(dir, text, 5, "has 5 words");
    unlink(words);
    remove_tree(dir);
}

Test(cli_run, bad_run_flags)
{
    char *dir = temp_dir();
    char ini[700], args[2000];
    snprintf(ini, sizeof ini, "%s/ok.ini", dir);
    write_text(ini, "[experiment]\nm = 100\nn = 10\ntrials = 1\nqueries = 10\n");
    snprintf(args, sizeof args, "run %s --scale huge", ini);
    expect_refused_in(dir, args, "--scale", "huge");
    snprintf(args, sizeof args, "run %s --threads 0", ini);
    expect_refused_in(dir, args, "--threads", "'0'");
    snprintf(args, sizeof args, "run %s --shard 2/1", ini);
    expect_refused_in(dir, args, "--shard", "2/1");
    snprintf(args, sizeof args, "run %s %s", ini, ini);
    expect_refused_in(dir, args, "one experiment file at a time", NULL);
    snprintf(args, sizeof args, "run %s/none.ini", dir);
    expect_refused_in(dir, args, "none.ini", "cannot open");
    snprintf(args, sizeof args, "run %s --frobnicate", ini);
    expect_refused_in(dir, args, "--frobnicate", NULL);
    remove_tree(dir);
}

/* ---- the ideal scheme against the exact formula ------------------------ */

typedef struct {
    double m, n, k, fpr, se, exact, classic, z;
    int z_blank;
} ideal_row;

static size_t header_index(const char *header, const char *name)
{
    size_t column = 0;
    for (const char *p = header; p && *p; column++) {
        size_t len = strcspn(p, ",\n");
        if (len == strlen(name) && strncmp(p, name, len) == 0)
            return column;
        p = p[len] == ',' ? p + len + 1 : NULL;
    }
    cr_assert_fail("no column %s", name);
    return 0;
}

static const char *field(const char *line, size_t column, char *out, size_t size)
{
    for (size_t c = 0; c < column; c++)
        line = strchr(line, ',') + 1;
    size_t len = strcspn(line, ",\n");
    snprintf(out, size, "%.*s", (int)len, line);
    return out;
}

/* Rows of a sweep's CSV as ideal_rows; returns the count. */
static size_t parse_ideal(const char *csv, ideal_row *rows, size_t max)
{
    const char *line = csv;
    while (*line == '#')
        line = strchr(line, '\n') + 1;
    const char *header = line;
    size_t cm = header_index(header, "m"), cn = header_index(header, "n"), ck = header_index(header, "k"),
           cf = header_index(header, "fpr"), cs = header_index(header, "fpr_se"),
           ce = header_index(header, "fpr_exact"), cc = header_index(header, "fpr_classic"),
           cz = header_index(header, "z");
    size_t count = 0;
    char buf[64];
    for (line = strchr(header, '\n') + 1; *line && count < max; line = strchr(line, '\n') + 1) {
        ideal_row *r = &rows[count++];
        r->m = atof(field(line, cm, buf, sizeof buf));
        r->n = atof(field(line, cn, buf, sizeof buf));
        r->k = atof(field(line, ck, buf, sizeof buf));
        r->fpr = atof(field(line, cf, buf, sizeof buf));
        r->se = atof(field(line, cs, buf, sizeof buf));
        r->exact = atof(field(line, ce, buf, sizeof buf));
        r->classic = atof(field(line, cc, buf, sizeof buf));
        r->z_blank = field(line, cz, buf, sizeof buf)[0] == '\0';
        r->z = atof(buf);
    }
    return count;
}

/* 48 small-m cells (m = 16, 32, 64: the classic formula is off there) and
 * 24 larger ones (m = 1009, a prime, and 4096), fixed seeds, 1000 or 300
 * trials.  The exact formula must hold within 5 standard errors in every
 * cell with a spread; the classic one must fail that test somewhere at
 * small m, or the check could not tell the formulas apart. */
Test(cli_run, ideal_scheme_agrees_with_the_exact_formula, .timeout = 120)
{
    cli_result small = run_cli("sweep --scheme ideal --m 16,32,64 --n 2,4,8,16 --k 1,2,4,8 --trials 1000 "
                               "--queries 1000 --seed 20240601 --quiet");
    cli_result large = run_cli("sweep --scheme ideal --m 1009,4096 --n 100,200,400,800 --k 1,3,6 --trials 300 "
                               "--queries 2000 --seed 77 --quiet");
    cr_assert_eq(small.status, 0, "%s", small.err);
    cr_assert_eq(large.status, 0, "%s", large.err);
    ideal_row rows[100];
    size_t count = parse_ideal(small.out, rows, 100);
    size_t small_count = count;
    count += parse_ideal(large.out, rows + count, 100 - count);
    cr_assert_eq(small_count, 48);
    cr_assert_eq(count, 72);
    size_t checked = 0, classic_rejected = 0;
    for (size_t i = 0; i < count; i++) {
        const ideal_row *r = &rows[i];
        if (!(r->se > 0)) {
            cr_assert(r->z_blank, "z without a spread");
            continue; /* every trial gave the same rate: no spread to judge by */
        }
        double z = (r->fpr - r->exact) / r->se;
        cr_assert(fabs(z - r->z) <= 1e-6 * fmax(1, fabs(z)), "the z column %g is not (fpr - fpr_exact)/fpr_se = %g",
                  r->z, z);
        cr_assert(fabs(z) < 5, "m %g n %g k %g: fpr %g vs exact %g, se %g: z = %.2f", r->m, r->n, r->k, r->fpr,
                  r->exact, r->se, z);
        checked++;
        if (r->m <= 64 && fabs((r->fpr - r->classic) / r->se) >= 5)
            classic_rejected++;
    }
    cr_assert(checked >= 50, "only %zu cells had a spread", checked);
    cr_assert(classic_rejected >= 5, "the classic formula was rejected in only %zu small-m cells: no teeth",
              classic_rejected);
    cli_free(&small);
    cli_free(&large);
}

/* theory: each layout's own best k and formula; -o and --format. */
Test(cli_run, theory_per_layout_with_formats)
{
    cli_result r = run_cli("theory --n 1000 --bits-per-item 16 --filter standard,register64");
    cr_assert_eq(r.status, 0, "%s", r.err);
    csv_table t = csv_read(r.out);
    cr_assert_eq(t.count, 2);
    cr_expect(csv_num(&t, t.rows[0], "k_opt_int") == 11 && csv_num(&t, t.rows[0], "k") == 11);
    cr_expect(csv_num(&t, t.rows[1], "k_opt_int") == 6, "register64's best k at 16 bits per item");
    cr_expect(csv_num(&t, t.rows[1], "fpr_exact") > csv_num(&t, t.rows[0], "fpr_exact"));
    char buf[32];
    cr_expect_str_eq(csv_get(&t, t.rows[1], "k_status", buf, sizeof buf), "optimal");
    csv_free(&t);
    cli_free(&r);

    char *dir = temp_dir(), args[600], path[400];
    snprintf(path, sizeof path, "%s/theory.json", dir);
    snprintf(args, sizeof args, "theory --n 1000 --m 1e4 --filter splitblock --format json -o %s", path);
    r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "");
    char *json = slurp(path);
    cr_assert_not_null(json);
    cr_expect(strstr(json, "\"filter\": \"splitblock\"") && strstr(json, "\"k_status\": \"fixed\""), "%s", json);
    free(json);
    cli_free(&r);
    remove_tree(dir);

    r = run_cli("theory --n 10 --m 100 --format xml");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--format: unknown format 'xml'") != NULL && count_lines(r.err) == 1, "%s", r.err);
    cli_free(&r);
}
