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
