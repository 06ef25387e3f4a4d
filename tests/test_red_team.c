/* test_red_team.c -- the cases of issue 24 that did not hold, each as an
 * input, its exit status, a pattern of its one line on stderr, and the
 * check that no output was touched (helpers_cases.h).  The sections follow
 * the issue: merge proves its shards belong together, experiment files are
 * read exactly, CSV every reader parses, failing before the work with the
 * right reason, locks and journals, plugins. */
#include <criterion/criterion.h>
#include <limits.h>

#include "helpers.h"
#include "helpers_cases.h"
#include "output.h"

/* Five cells; small enough to run in milliseconds. */
static const char SMALL[] = "[experiment]\nseed = 1\n[g]\nbits_per_item = 8\nn = 500\nk = 1..5\ntrials = 2\nqueries = 500\n";

typedef struct {
    char *dir;
    char ini[600];
    char s1[700], s2[700]; /* shards 1/2 and 2/2 of SMALL */
    char out[700];         /* a merge output that exists before each case */
} shards;

static shards shards_new(void)
{
    shards s;
    s.dir = temp_dir();
    snprintf(s.ini, sizeof s.ini, "%s/e.ini", s.dir);
    snprintf(s.s1, sizeof s.s1, "%s/s1.csv", s.dir);
    snprintf(s.s2, sizeof s.s2, "%s/s2.csv", s.dir);
    snprintf(s.out, sizeof s.out, "%s/out.csv", s.dir);
    write_text(s.ini, SMALL);
    write_text(s.out, "# the previous merge\n");
    char args[4000];
    for (int i = 1; i <= 2; i++) {
        snprintf(args, sizeof args, "run %s -o %s --shard %d/2 --quiet", s.ini, i == 1 ? s.s1 : s.s2, i);
        cli_result r = run_cli(args);
        cr_assert_eq(r.status, 0, "%s", r.err);
        cli_free(&r);
    }
    return s;
}

/* A variant of shard 2 made by a sed script, as DIR/v.csv. */
static void variant(const shards *s, const char *sed)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "sed -e '%s' s2.csv > v.csv", sed);
    cr_assert_eq(shell_in(s->dir, cmd), 0, "%s", cmd);
}

static void expect_merge_refused(const shards *s, const char *second, const char *pattern)
{
    char args[4000];
    snprintf(args, sizeof args, "merge -o %s %s %s/%s", s->out, s->s1, s->dir, second);
    expect_case(s->dir, args, 2, pattern);
}

/* ---- 1. merge proves its shards belong together -------------------------- */

Test(red_team, merge_refuses_shards_of_another_run, .timeout = 60)
{
    shards s = shards_new();
    char args[4000];
    /* the same experiment name, another seed */
    char other[700];
    snprintf(other, sizeof other, "%s/other", s.dir);
    cr_assert_eq(mkdir(other, 0755), 0);
    char ini[800];
    snprintf(ini, sizeof ini, "%s/e.ini", other);
    write_text(ini, "[experiment]\nseed = 2\n[g]\nbits_per_item = 8\nn = 500\nk = 1..5\ntrials = 2\nqueries = 500\n");
    snprintf(args, sizeof args, "run %s -o %s/seed2.csv --shard 2/2 --quiet", ini, s.dir);
    cr_assert_eq(run_cli(args).status, 0);
    expect_merge_refused(&s, "seed2.csv", "seed2.csv: seed is '2', but");
    /* the same name and seed, the file edited (a comment): the inputs differ */
    write_text(ini, "[experiment]\nseed = 1\n; edited\n[g]\nbits_per_item = 8\nn = 500\nk = 1..5\ntrials = 2\nqueries = 500\n");
    snprintf(args, sizeof args, "run %s -o %s/edited.csv --shard 2/2 --quiet", ini, s.dir);
    cr_assert_eq(run_cli(args).status, 0);
    expect_merge_refused(&s, "edited.csv", "edited.csv: inputs is '");
    /* another scale, another experiment, another results version */
    snprintf(args, sizeof args, "run %s -o %s/full.csv --shard 2/2 --scale full --quiet", s.ini, s.dir);
    cr_assert_eq(run_cli(args).status, 0);
    expect_merge_refused(&s, "full.csv", "full.csv: scale is 'full', but");
    variant(&s, "s/^# experiment: e$/# experiment: f/; s/^e,/f,/");
    expect_merge_refused(&s, "v.csv", "v.csv: experiment is 'f', but");
    variant(&s, "s/^# results_version: .*/# results_version: 999/");
    expect_merge_refused(&s, "v.csv", "v.csv: results_version is '999'");
    /* a shard without the identity lines (an older bloomlab's) */
    variant(&s, "/^# inputs:/d");
    expect_merge_refused(&s, "v.csv", "v.csv: no '# inputs:' line");
    remove_tree(s.dir);
}

Test(red_team, merge_checks_every_row, .timeout = 60)
{
    shards s = shards_new();
    /* two fields deleted from a row */
    variant(&s, "s/^e,standard,xxh3_64,double,/e,standard,/");
    expect_merge_refused(&s, "v.csv", "v.csv:15: the row has 35 fields, the header 37");
    /* a cell index out of range, of another shard, negative, twice */
    variant(&s, "s/,1$/,99/");
    expect_merge_refused(&s, "v.csv", "cell = '99' is not a cell index from 0 to 4");
    variant(&s, "s/,1$/,2/");
    expect_merge_refused(&s, "v.csv", "cell 2 is not in shard 2/2");
    variant(&s, "s/,1$/,-1/");
    expect_merge_refused(&s, "v.csv", "cell = '-1' is not a cell index");
    variant(&s, "s/,3$/,1/");
    expect_merge_refused(&s, "v.csv", "cell 1 appears twice");
    /* a row of another experiment or seed under this metadata */
    variant(&s, "/,3$/s/^e,/x,/");
    expect_merge_refused(&s, "v.csv", "the row's experiment is not 'e'");
    variant(&s, "s/,1,3$/,7,3/");
    expect_merge_refused(&s, "v.csv", "the row's seed is not 1");
    /* a row missing in the middle: the shard is incomplete */
    variant(&s, "/,1$/d");
    expect_merge_refused(&s, "v.csv", "1 of the 2 cells of shard 2/2 are missing");
    /* a missing shard, a shard given twice */
    char args[4000];
    snprintf(args, sizeof args, "merge -o %s %s", s.out, s.s1);
    expect_case(s.dir, args, 2, "shard 2/2 was not given");
    snprintf(args, sizeof args, "merge -o %s %s %s %s", s.out, s.s1, s.s2, s.s2);
    expect_case(s.dir, args, 2, "shard 2/2 is given twice");
    remove_tree(s.dir);
}

Test(red_team, merge_bounds_cells_and_names_truncation, .timeout = 60)
{
    shards s = shards_new();
    /* these crashed merge (an unchecked calloc) */
    variant(&s, "s/^# cells: .*/# cells: 100000000000000/");
    expect_merge_refused(&s, "v.csv", "cells = '100000000000000' is not a cell count from 1 to 1000000");
    variant(&s, "s/^# cells: .*/# cells: -1/");
    expect_merge_refused(&s, "v.csv", "cells = '-1' is not a cell count");
    variant(&s, "s/^# cells: .*/# cells: 0/");
    expect_merge_refused(&s, "v.csv", "cells = '0' is not a cell count");
    /* cut mid-row, mid-header, mid-metadata: reported as truncated */
    cr_assert_eq(shell_in(s.dir, "head -c -20 s2.csv > v.csv"), 0);
    expect_merge_refused(&s, "v.csv", "the file ends inside this line: truncated");
    cr_assert_eq(shell_in(s.dir, "grep -v '^e,' s2.csv | head -c -30 > v.csv"), 0);
    expect_merge_refused(&s, "v.csv", "truncated");
    cr_assert_eq(shell_in(s.dir, "head -n 4 s2.csv > v.csv"), 0);
    expect_merge_refused(&s, "v.csv", "ends before its CSV header: truncated");
    cr_assert_eq(shell_in(s.dir, "grep -v '^e,' s2.csv > v.csv"), 0);
    expect_merge_refused(&s, "v.csv", "2 of the 2 cells of shard 2/2 are missing: truncated?");
    cr_assert_eq(shell_in(s.dir, ": > v.csv"), 0);
    expect_merge_refused(&s, "v.csv", "v.csv: empty file");
    /* and the good pair still merges, with the identity lines kept */
    char args[4000];
    snprintf(args, sizeof args, "merge -o %s %s %s", s.out, s.s2, s.s1);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *text = slurp(s.out), *inputs = meta_value(text, "inputs"), *version = meta_value(text, "results_version");
    cr_assert_eq(strlen(inputs), 32, "%s", text);
    cr_assert_str_eq(version, "1");
    free(text);
    free(inputs);
    free(version);
    cli_free(&r);
    remove_tree(s.dir);
}

/* ---- 2. experiment files read exactly ------------------------------------ */

/* An experiment file of `text` in a fresh directory; runs it with -o there
 * and expects the case. */
static void expect_file_refused(const char *text, size_t len, int status, const char *pattern)
{
    char *dir = temp_dir();
    char ini[600], args[2000];
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    FILE *f = fopen(ini, "wb");
    cr_assert_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    snprintf(args, sizeof args, "run %s -o %s/out.csv", ini, dir);
    expect_case(dir, args, status, pattern);
    remove_tree(dir);
}

#define REFUSED(text, pattern) expect_file_refused(text, sizeof text - 1, 2, pattern)

/* head, then a line of `prefix` padded with 'x' to `len` characters (the
 * prefix counted), then `rest`. */
static char *padded(const char *head, const char *prefix, size_t len, const char *rest)
{
    size_t size = strlen(head) + len + strlen(rest) + 2;
    char *text = malloc(size);
    size_t used = (size_t)sprintf(text, "%s%s", head, prefix);
    while (used < strlen(head) + len)
        text[used++] = 'x';
    sprintf(text + used, "%s", rest);
    return text;
}

Test(red_team, long_lines_are_refused_at_their_real_line, .timeout = 60)
{
    /* inih cut this after 199 bytes and read "queries = 7" as a key */
    char *text = padded("[experiment]\n", "description = ", 198, "queries = 7\n[g]\nm = 1000\nn = 10\n");
    expect_file_refused(text, strlen(text), 2, "e.ini:2: the line is 209 characters long; lines are read up to 198");
    free(text);
    /* a 100 KB key on line 3, and a parenthesis in a long description */
    text = padded("[experiment]\nseed = 1\n", "", 100000, " = 3\n[g]\nm = 1000\nn = 10\n");
    expect_file_refused(text, strlen(text), 2, "e.ini:3: the line is 100004 characters long");
    free(text);
    text = padded("[g]\nm = 1000\nn = 10\n", "description = (", 250, ")\n");
    expect_file_refused(text, strlen(text), 2, "e.ini:4: the line is 251 characters long");
    free(text);
    /* 198 characters is read whole, and the value is what was written */
    char *dir = temp_dir(), ini[600], args[2000];
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    text = padded("[experiment]\n", "description = ", 198, "\n[g]\nm = 1000\nn = 10\ntrials = 1\nqueries = 3\n");
    write_text(ini, text);
    free(text);
    snprintf(args, sizeof args, "run %s -o %s/out.csv --quiet", ini, dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    remove_tree(dir);
}

Test(red_team, names_bytes_and_directories, .timeout = 60)
{
    /* a name of 128 characters (was cut to 127), from the key or the file */
    char *text = padded("[experiment]\n", "name = ", 7 + 128, "\n[g]\nm = 1000\nn = 10\n");
    expect_file_refused(text, strlen(text), 2, "e.ini:2: name = 'xxxxxxxx");
    free(text);
    char *dir = temp_dir(), ini[800], args[2000];
    snprintf(ini, sizeof ini, "%s/%0128d.ini", dir, 0);
    write_text(ini, "[g]\nm = 1000\nn = 10\n");
    snprintf(args, sizeof args, "run %s -o %s/out.csv", ini, dir);
    expect_case(dir, args, 2, "the experiment's name ('0000");
    /* a section name inih would cut at 49 characters */
    text = padded("", "[", 1 + 50, "]\nm = 1000\nn = 10\n");
    expect_file_refused(text, strlen(text), 2, "e.ini:1: a section name of 50 characters; the limit is 49");
    free(text);
    /* control bytes and NUL: escaped in the message, refused in the line */
    REFUSED("[g]\nm\001x = 3\n", "e.ini:2: unknown key 'm\\x01x'");
    expect_file_refused("[g]\nm = 1000\0 n = 5\n", 20, 2, "e.ini:2: a NUL byte in the line");
    /* a directory is not an empty experiment ("no n given") */
    snprintf(args, sizeof args, "run %s -o %s/out.csv", dir, dir);
    expect_case(dir, args, 2, "is a directory, not an experiment file");
    remove_tree(dir);
}

/* ---- 3. CSV that every reader parses --------------------------------------- */

/* Every row of every CSV file given has the header's field count by
 * Python's csv module (Debian's /usr/bin/python3), '#' lines aside. */
static void python_csv_check(const char *paths)
{
    char cmd[4000];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c 'import csv, sys\n"
             "for p in sys.argv[1:]:\n"
             "    rows = list(csv.reader(l for l in open(p, newline=\"\") if not l.startswith(\"#\")))\n"
             "    counts = set(len(r) for r in rows)\n"
             "    assert len(rows) > 1 and counts == {len(rows[0])}, (p, counts)\n' %s",
             paths);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

Test(red_team, names_with_commas_and_quotes_are_quoted, .timeout = 60)
{
    char *dir = temp_dir(), ini[600], args[2000], out[700];
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    snprintf(out, sizeof out, "%s/out.csv", dir);
    write_text(ini, "[experiment]\nname = a,\"b\"\n[s,\"x\"]\nm = 1000\nn = 10\ntrials = 1\nqueries = 10\nk = 1..2\n");
    snprintf(args, sizeof args, "run %s -o %s --quiet", ini, out);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    python_csv_check(out);
    char *text = slurp(out);
    cr_assert(strstr(text, "\n\"a,\"\"b\"\"\",standard,") != NULL, "%s", text);
    free(text);
    /* merge reads the quoted rows back */
    for (int i = 1; i <= 2; i++) {
        snprintf(args, sizeof args, "run %s -o %s/s%d.csv --shard %d/2 --quiet", ini, dir, i, i);
        cr_assert_eq(run_cli(args).status, 0);
    }
    snprintf(args, sizeof args, "merge -o %s/m.csv %s/s1.csv %s/s2.csv", dir, dir, dir);
    r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    remove_tree(dir);
}

Test(red_team, control_bytes_never_split_a_line, .timeout = 60)
{
    char *dir = temp_dir(), args[2000];
    /* a newline in a words: path is refused (names go into the CSV) */
    snprintf(args, sizeof args, "sweep --keys 'words:%s/a\nb' --n 2 --m 100 -o %s/out.csv", dir, dir);
    expect_case(dir, args, 2, "has a control character (names go into the CSV)");
    /* a newline in the output path reaches the # command: line escaped */
    snprintf(args, sizeof args, "sweep --n 10 --m 100 --trials 1 --queries 10 --quiet -o '%s/a\nb.csv'", dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    char path[700];
    snprintf(path, sizeof path, "%s/a\nb.csv", dir);
    char *text = slurp(path);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "/a\\x0ab.csv") != NULL, "%s", text);
    for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
        if (strncmp(line, "experiment,", 11) == 0)
            break;
        cr_assert_eq(line[0], '#', "a metadata line was split: %s", text);
    }
    free(text);
    remove_tree(dir);
}

/* Every CSV the sweep and the bench write: all layouts, schemes, key sets
 * and measures of a sweep, and a small bench. */
Test(red_team, python_reads_every_csv_the_sweep_and_bench_write, .timeout = 120)
{
    char *dir = temp_dir(), args[2000];
    snprintf(args, sizeof args,
             "sweep --filter standard,counting,partitioned,blocked512,register64 --scheme double,ideal,enhanced "
             "--keys random64,urls,words --n 500 --bits-per-item 10 --trials 2 --queries 500 --quiet -o %s/a.csv",
             dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    snprintf(args, sizeof args,
             "sweep --filter splitblock,counting --k 8 --measure delete --deletes 100 --n 500 --m 8192 "
             "--trials 2 --queries 500 --quiet -o %s/b.csv", dir);
    r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    snprintf(args, sizeof args, "bench --max-bytes 64K --ops 2e4 --quiet -o %s/bench.csv", dir);
    r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    char paths[2200];
    snprintf(paths, sizeof paths, "%s/a.csv %s/b.csv %s/bench.csv", dir, dir, dir);
    python_csv_check(paths);
    remove_tree(dir);
}
