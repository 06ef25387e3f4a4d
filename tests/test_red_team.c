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
#include "harness/output.h"
#include "harness/schema.h"
#include "base/version.h"

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
    char fields[80];
    snprintf(fields, sizeof fields, "the row has %d fields, the header %d", SWEEP_COLUMNS - 2, SWEEP_COLUMNS);
    expect_merge_refused(&s, "v.csv", fields);
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
    char want[16];
    snprintf(want, sizeof want, "%d", BLOOMLAB_RESULTS_VERSION);
    cr_assert_str_eq(version, want);
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

/* ---- 4. fail before the work, with the right reason ------------------------ */

Test(red_team, refused_before_the_first_cell, .timeout = 60)
{
    char *dir = temp_dir(), args[2000], cmd[6000];
    /* -o "" ran every cell, then failed and left ..partial behind */
    snprintf(cmd, sizeof cmd, "%s sweep --n 10 --m 100 -o '' 2>err.txt; test $? -eq 2", bloomlab_abs());
    cr_assert_eq(shell_in(dir, cmd), 0);
    char err_path[700];
    snprintf(err_path, sizeof err_path, "%s/err.txt", dir);
    char *err = slurp(err_path);
    cr_assert(strstr(err, "-o: the output file name is empty") != NULL, "%s", err);
    free(err);
    unlink(err_path);
    char *listing = dir_snapshot(dir);
    cr_assert_str_eq(listing, "", "left behind: %s", listing);
    free(listing);
    /* 1e9 trials: the trial records, not "a filter of 64 bytes" */
    snprintf(args, sizeof args, "sweep --n 1 --m 100 --trials 1e9 --queries 1 -o %s/out.csv", dir);
    expect_case(dir, args, 2, "trials = 1000000000 needs ");
    expect_case(dir, args, 2, " GB of per-trial records");
    /* wraparound: 4294967297/4294967298 ran as 1/2 */
    snprintf(args, sizeof args, "sweep --n 10 --m 100 --shard 4294967297/4294967298 -o %s/out.csv", dir);
    expect_case(dir, args, 2, "--shard: '4294967297/4294967298' is not I/N with 1 <= I <= N <= 4294967295");
    /* the memory sentence says what the limit is */
    snprintf(args, sizeof args, "sweep --n 10 --m 2^40 --trials 1 -o %s/out.csv", dir);
    expect_case(dir, args, 2, "GB of filter memory (1 filter at once); a run may use 90% of this machine's");
    /* an output into a directory, into a missing directory, into a file */
    snprintf(args, sizeof args, "sweep --n 10 --m 100 -o %s", dir);
    expect_case(dir, args, 2, "is a directory");
    snprintf(args, sizeof args, "sweep --n 10 --m 100 -o %s/none/out.csv", dir);
    expect_case(dir, args, 2, "No such file or directory");
    snprintf(args, sizeof args, "merge -o '' %s/x.csv", dir);
    expect_case(dir, args, 2, "the output file name is empty");
    snprintf(args, sizeof args, "uniformity -o %s/none/u.csv", dir);
    expect_case(dir, args, 2, "No such file or directory");
    remove_tree(dir);
    /* theory runs no trials: no limit on inserts */
    cli_result r = run_cli("theory --m 1e15 --n 1e12");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\n1000000000000000,1000000000000,") != NULL, "%s", r.out);
    cli_free(&r);
}

/* ---- 5. locks and journals that hold ---------------------------------------- */

Test(red_team, a_symlinked_output_shares_its_targets_lock, .timeout = 60)
{
    char *dir = temp_dir(), ini[600], args[2000], path[700];
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    write_text(ini, SMALL);
    cr_assert_eq(shell_in(dir, "mkdir real && ln -s real/target.csv link.csv"), 0);
    /* another run holds the target's lock */
    snprintf(path, sizeof path, "%s/real/target.csv.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    cr_assert(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
    snprintf(args, sizeof args, "run %s -o %s/link.csv", ini, dir);
    expect_case(dir, args, 2, "is being written by another run (lock ");
    close(fd);
    unlink(path);
    /* free: the link stays a link, the target gets the CSV */
    snprintf(args, sizeof args, "run %s -o %s/link.csv --quiet", ini, dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    cr_assert_eq(shell_in(dir, "test -L link.csv && grep -q '^e,standard' real/target.csv"), 0);
    char *listing = dir_snapshot(dir);
    cr_assert(strstr(listing, ".partial") == NULL && strstr(listing, ".lock") == NULL, "%s", listing);
    free(listing);
    remove_tree(dir);
}

Test(red_team, long_output_names_never_collide)
{
    char base[400], dir[40] = "/d/";
    memset(base, 'o', 300);
    strcpy(base + 300, ".csv");
    char path[500];
    snprintf(path, sizeof path, "%s%s", dir, base);
    char *lock = output_sibling(path, "", ".lock"), *journal = output_sibling(path, ".", ".partial"),
         *tmp = output_sibling(path, "", ".tmp.123");
    cr_assert(strcmp(lock, journal) != 0 && strcmp(lock, tmp) != 0 && strcmp(journal, tmp) != 0);
    cr_assert(strlen(strrchr(lock, '/') + 1) <= NAME_MAX && strlen(strrchr(journal, '/') + 1) <= NAME_MAX);
    cr_assert(strncmp(journal, "/d/.", 4) == 0 && strcmp(lock + strlen(lock) - 5, ".lock") == 0, "%s", lock);
    /* another long name of the same first characters gets other siblings */
    base[299] = 'p';
    snprintf(path, sizeof path, "%s%s", dir, base);
    char *lock2 = output_sibling(path, "", ".lock");
    cr_assert_str_neq(lock, lock2);
    free(lock);
    free(lock2);
    free(journal);
    free(tmp);
}

/* The case end to end: an output path of over 316 characters,
 * interrupted; the journal the message promises is there, and a rerun
 * resumes from it. */
Test(red_team, an_interrupted_run_with_a_long_output_keeps_its_journal, .timeout = 240)
{
    char *dir = temp_dir(), ini[600], name[400], cmd[6000];
    memset(name, 0, sizeof name);
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    /* 20 trials, so that the run is still going when the kill comes a
     * second later on a fast machine (with 2 it sometimes finished first) */
    write_text(ini, "[g]\nbits_per_item = 10\nn = 3e5\nk = 1..60\ntrials = 20\nqueries = 3e5\n");
    /* three directories of 110 characters, then the file: the names of the
     * lock and the journal used to be cut to 316 characters, inside the
     * directories, and so to the same file */
    size_t used = 0;
    for (int level = 0; level < 3; level++) {
        memset(name + used, 'd', 110);
        used += 110;
        name[used] = '\0';
        char sub[900];
        snprintf(sub, sizeof sub, "%s/%s", dir, name);
        cr_assert_eq(mkdir(sub, 0755), 0, "%s", sub);
        name[used++] = '/';
    }
    snprintf(name + used, sizeof name - used, "out.csv");
    snprintf(cmd, sizeof cmd, "%s run e.ini -o %s --threads 1 --quiet & sleep 1; kill -INT $!; wait $!; test $? -eq 130",
             bloomlab_abs(), name);
    char full[6200];
    snprintf(full, sizeof full, "{ %s; } 2>err.txt", cmd);
    cr_assert_eq(shell_in(dir, full), 0, "the run was not interrupted");
    char path[700];
    snprintf(path, sizeof path, "%s/err.txt", dir);
    char *err = slurp(path);
    const char *kept = strstr(err, " and kept in ");
    cr_assert_not_null(kept, "%s", err);
    char journal[1200];
    snprintf(journal, sizeof journal, "%s/%.*s", dir, (int)strcspn(kept + 13, "\n"), kept + 13);
    cr_assert(file_exists(journal), "the journal promised kept is gone: %s", err);
    free(err);
    char *listing = dir_snapshot(dir);
    cr_assert(strstr(listing, ".lock ") == NULL, "%s", listing);
    free(listing);
    remove_tree(dir);
}

/* A journal of one run's rows, as an interrupted run leaves it: its inputs
 * fingerprint, then "INDEX\tROW" lines. */
static void forge_journal(const char *csv_path, const char *journal_path)
{
    char *text = slurp(csv_path), *inputs = meta_value(text, "inputs");
    FILE *f = fopen(journal_path, "w");
    fprintf(f, "# fingerprint: %s\n", inputs);
    int index = 0;
    for (char *line = strstr(text, "\nexperiment,") + 1; (line = strchr(line, '\n')) && line[1]; index++) {
        line++;
        fprintf(f, "%d\t%.*s\n", index, (int)strcspn(line, "\n"), line);
    }
    fclose(f);
    free(text);
    free(inputs);
}

Test(red_team, resume_fingerprints_the_contents_of_every_input, .timeout = 60)
{
    char *dir = temp_dir(), args[3000], out[700], journal[700], words[700], so[700];
    snprintf(out, sizeof out, "%s/out.csv", dir);
    snprintf(journal, sizeof journal, "%s/.out.csv.partial", dir);
    snprintf(words, sizeof words, "%s/w.txt", dir);
    write_text(words, "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n");
    snprintf(args, sizeof args, "sweep --keys words:%s --n 3 --queries 4 --m 64 --k 1..3 --trials 1 -o %s", words, out);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    /* the same file: the run resumes from the journal (the finished output
     * goes first: a run over a current output has nothing to do) */
    forge_journal(out, journal);
    unlink(out);
    r = run_cli(args);
    cr_assert(r.status == 0 && strstr(r.err, "resuming: 3 finished cells") != NULL, "%s", r.err);
    cli_free(&r);
    char *first = slurp(out);
    /* the same name, other words: the journal is not used */
    forge_journal(out, journal);
    unlink(out);
    write_text(words, "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n");
    r = run_cli(args);
    cr_assert(r.status == 0 && strstr(r.err, "resuming") == NULL, "%s", r.err);
    cr_assert(strstr(r.err, ".out.csv.partial holds cells of other inputs") != NULL, "%s", r.err);
    cli_free(&r);
    char *second = slurp(out), *a = meta_value(first, "inputs"), *b = meta_value(second, "inputs");
    cr_assert_str_neq(a, b);
    cr_assert(strstr(second, "alpha") == NULL);
    free(first);
    free(second);
    free(a);
    free(b);
    /* a plugin library's bytes are an input too */
    snprintf(so, sizeof so, "%s/p.so", dir);
    char copy[1600];
    snprintf(copy, sizeof copy, "cp build/plugin_example.so %s", so);
    cr_assert_eq(system(copy), 0);
    snprintf(args, sizeof args, "sweep --hash plugin:%s:example_hash --n 10 --m 100 --trials 1 --queries 10 --quiet", so);
    r = run_cli(args);
    a = meta_value(r.out, "inputs");
    cli_free(&r);
    snprintf(copy, sizeof copy, "printf 'x' >> %s", so);
    cr_assert_eq(system(copy), 0);
    r = run_cli(args);
    b = meta_value(r.out, "inputs");
    cr_assert(r.status == 0 && strlen(a) == 32 && strcmp(a, b) != 0, "%s %s %s", a, b, r.err);
    cli_free(&r);
    free(a);
    free(b);
    remove_tree(dir);
}

/* On a terminal (script(1) gives one), a failure mid-run starts its own
 * line instead of trailing the progress line. */
Test(red_team, errors_start_a_line_after_the_progress_line, .timeout = 120)
{
    char *dir = temp_dir(), ini[600], cmd[6000], log[700];
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    write_text(ini, "[g]\nbits_per_item = 8\nn = 2000\nk = 1..30\ntrials = 2\nqueries = 2000\n");
    snprintf(log, sizeof log, "%s/log.txt", dir);
    snprintf(cmd, sizeof cmd, "script -qec \"sh -c 'ulimit -f 2; exec %s run e.ini -o out.csv --threads 1'\" log.txt >/dev/null 2>&1",
             bloomlab_abs());
    shell_in(dir, cmd);
    char *text = slurp(log);
    cr_assert_not_null(text);
    const char *error = strstr(text, "bloomlab run: cannot write the journal");
    cr_assert_not_null(error, "%s", text);
    cr_assert(error > text && error[-1] == '\n', "the error trails another line: %s", text);
    free(text);
    remove_tree(dir);
}

/* ---- 6. plugins ------------------------------------------------------------- */

Test(red_team, a_constant_hash_is_flagged_and_a_data_symbol_refused, .timeout = 60)
{
    char *dir = temp_dir(), so[700], args[3000], out[700];
    snprintf(so, sizeof so, "%s/c.so", dir);
    snprintf(out, sizeof out, "%s/out.csv", dir);
    build_plugin(so, "#include <stdint.h>\n#include <stddef.h>\n"
                     "uint64_t constant(const void *k, size_t n, uint64_t s) { (void)k; (void)n; (void)s; return 42; }\n"
                     "const uint64_t table[4] = {1, 2, 3, 4};\n");
    snprintf(args, sizeof args, "sweep --hash plugin:%s:constant --n 100 --m 1000 --k 3 --trials 2 --queries 100 -o %s", so, out);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.err, "warning: cell 0 (standard, hash plugin:") != NULL &&
                  strstr(r.err, "every query answered \"probably\" (fpr = 1): the filter told nothing") != NULL, "%s", r.err);
    cli_free(&r);
    char *text = slurp(out);
    cr_assert(strstr(text, "\n# degenerate: cell 0 (standard, hash plugin:") != NULL, "%s", text);
    free(text);
    /* uniformity rejects it, and says so with its exit status */
    snprintf(args, sizeof args, "uniformity --hash plugin:%s:constant --m 64 --n 1000", so);
    r = run_cli(args);
    cr_assert(r.status == 1 && strstr(r.err, "1 row rejected (first: plugin:") != NULL, "%d %s", r.status, r.err);
    cli_free(&r);
    /* a data symbol was called, and crashed */
    snprintf(args, sizeof args, "sweep --hash plugin:%s:table --n 100 --m 1000 -o %s", so, out);
    expect_case(dir, args, 2, "'table' in ");
    remove_tree(dir);
}

/* A plugin that goes wrong after `calls` calls (in the third cell or so,
 * when called 1000 times), in each way the issue lists. */
static const char BAD_PLUGIN[] =
    "#include <stdint.h>\n#include <stddef.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
    "static unsigned long calls;\n"
    "static int late(void) { return ++calls > 1000; }\n"
    "uint64_t segv(const void *k, size_t n, uint64_t s) { (void)k; (void)n; return late() ? *(volatile uint64_t *)(uintptr_t)8 : (s + calls) * 0x9E3779B97F4A7C15ULL; }\n"
    "uint64_t aborts(const void *k, size_t n, uint64_t s) { (void)k; (void)n; if (late()) abort(); return (s + calls) * 0x9E3779B97F4A7C15ULL; }\n"
    "uint64_t exits(const void *k, size_t n, uint64_t s) { (void)k; (void)n; if (late()) exit(0); return (s + calls) * 0x9E3779B97F4A7C15ULL; }\n"
    "uint64_t hangs(const void *k, size_t n, uint64_t s) { (void)k; (void)n; while (late()) pause(); return (s + calls) * 0x9E3779B97F4A7C15ULL; }\n";

/* The lines of stderr that bloomlab wrote: sh adds its own "Segmentation
 * fault" or "Aborted" for a child killed by a signal.  Warnings of the
 * cells that finished are not counted: BAD_PLUGIN's hash is not a function
 * of the key (it counts its calls), so those cells have false negatives,
 * and each is rightly warned of. */
static int bloomlab_lines(const char *err)
{
    int n = 0;
    for (const char *line = err; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line))
        n += strncmp(line, "bloomlab", 8) == 0 && strncmp(line, "bloomlab run: warning: ", 23) != 0;
    return n;
}

/* Run the bad plugin's `symbol` over 5 cells into DIR/out.csv: the exit
 * status, one line naming the plugin and `what`, the journal kept with the
 * finished cells the line names, no lock left. */
static void expect_plugin_failure(const char *dir, const char *so, const char *symbol, int status, const char *what)
{
    char cmd[6000], path[800];
    /* the hang is ended by SIGTERM a second in, as a batch system would */
    snprintf(cmd, sizeof cmd,
             "{ %s sweep --hash plugin:%s:%s --n 100 --m 1000 --k 1..5 --trials 1 --queries 100 --threads 1 -o out.csv%s; } 2>err.txt",
             bloomlab_abs(), so, symbol, strcmp(symbol, "hangs") == 0 ? " & sleep 1; kill -TERM $!; wait $!" : "");
    int got = shell_in(dir, cmd);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    char *err = slurp(path);
    unlink(path);
    cr_assert_eq(got, status, "%s: status %d: %s", symbol, got, err);
    cr_assert_eq(bloomlab_lines(err), 1, "%s", err);
    cr_assert(strstr(err, what) != NULL && strstr(err, symbol) != NULL, "%s", err);
    const char *kept = strstr(err, " finished cells are kept in .out.csv.partial");
    cr_assert_not_null(kept, "%s", err);
    long finished = strtol(strrchr(err, ';') + 2, NULL, 10);
    snprintf(path, sizeof path, "%s/.out.csv.partial", dir);
    char *journal = slurp(path);
    cr_assert_not_null(journal, "the journal was not kept");
    cr_assert(finished >= 1 && count_lines(journal) == finished + 1, "%ld cells: %s", finished, journal);
    free(journal);
    unlink(path);
    snprintf(path, sizeof path, "%s/out.csv.lock", dir);
    cr_assert(!file_exists(path), "the lock was left");
    free(err);
}

Test(red_team, a_failing_plugin_is_named_and_its_cells_kept, .timeout = 120)
{
    char *dir = temp_dir(), so[700], args[2000];
    snprintf(so, sizeof so, "%s/bad.so", dir);
    build_plugin(so, BAD_PLUGIN);
    expect_plugin_failure(dir, so, "segv", 139, "crashed (SIGSEGV, a bad memory access) in cell ");
    expect_plugin_failure(dir, so, "aborts", 134, "aborted (SIGABRT) in cell ");
    expect_plugin_failure(dir, so, "exits", 1, "exit() was called in cell ");
    /* SIGTERM while a plugin call hangs: honoured within half a second */
    expect_plugin_failure(dir, so, "hangs", 130, "did not stop within half a second");
    /* a constructor that aborts, while the plugin is loaded */
    snprintf(so, sizeof so, "%s/ctor.so", dir);
    build_plugin(so, "#include <stdlib.h>\n#include <stdint.h>\n#include <stddef.h>\n"
                     "__attribute__((constructor)) static void boom(void) { abort(); }\n"
                     "uint64_t f(const void *k, size_t n, uint64_t s) { (void)k; (void)n; return s; }\n");
    snprintf(args, sizeof args, "sweep --hash plugin:%s:f --n 10 --m 100 -o %s/out.csv", so, dir);
    cli_result r = run_cli(args);
    cr_assert(r.status == 134 && strstr(r.err, "aborted (SIGABRT) in the constructor of the hash plugin") != NULL,
              "%d %s", r.status, r.err);
    cr_assert_eq(bloomlab_lines(r.err), 1, "%s", r.err);
    cli_free(&r);
    remove_tree(dir);
}
